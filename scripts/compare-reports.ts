// `npm run compare -- REPORT.json… [--markdown FILE] [--html FILE]`
// Renders several conformance reports as one rule × target matrix. Without an output option the
// Markdown goes to stdout.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ConformanceReport } from '../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../schemas/validators.ts';
import { comparisonMatrix, matrixHtml, matrixMarkdown } from '../conformance/report/compare.ts';

function readReport(file: string): ConformanceReport {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `Cannot read ${file} as JSON (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
      { cause: error },
    );
  }
  const validate = validatorFor<ConformanceReport>('conformance-report.schema.json');
  if (!validate(data)) {
    throw new Error(
      `${file} is not a conformance report (reports/conformance.json of a run):\n  ${describeSchemaErrors(validate.errors).join('\n  ')}`,
    );
  }
  return data;
}

const USAGE = 'Usage: npm run compare -- REPORT.json… [--markdown FILE] [--html FILE]';

function main(): number {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        markdown: { type: 'string' },
        html: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help === true) {
    console.log(
      `${USAGE}\n\nRenders several conformance reports (conformance.json of runs) as one rule × target matrix;\nwithout --markdown or --html the Markdown goes to stdout.\nExit codes: 0 written; 1 a report could not be read; 2 a bad option.`,
    );
    return 0;
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) {
    console.error(
      'Give one or more conformance.json files.\nUsage: npm run compare -- REPORT.json… [--markdown FILE] [--html FILE]',
    );
    return 2;
  }
  let matrix;
  try {
    matrix = comparisonMatrix(positionals.map(readReport));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  if (values.markdown) writeFileSync(values.markdown, matrixMarkdown(matrix));
  if (values.html) writeFileSync(values.html, matrixHtml(matrix));
  if (!values.markdown && !values.html) process.stdout.write(matrixMarkdown(matrix));
  return 0;
}

process.exitCode = main();
