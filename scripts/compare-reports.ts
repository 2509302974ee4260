// `npm run compare -- REPORT.json… [--label NAME]… [--markdown FILE] [--html FILE]`
// Renders several conformance reports as one rule × target matrix. Without an output option the
// Markdown goes to stdout. Each --label names a column, in the order of the reports; by default
// a column is named by target, profile and start time.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { ConformanceReport } from '../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../schemas/validators.ts';
import { comparisonMatrix, matrixHtml, matrixMarkdown } from '../conformance/report/compare.ts';

export const COMPARE_USAGE =
  'Usage: npm run compare -- REPORT.json… [--label NAME]… [--markdown FILE] [--html FILE]';

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

/** The command, for any entry point: returns its exit code (0, or 2 for bad arguments or files). */
export function compareReports(args: readonly string[]): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        markdown: { type: 'string' },
        html: { type: 'string' },
        label: { type: 'string', multiple: true },
        help: { type: 'boolean' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${COMPARE_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(
      `${COMPARE_USAGE}\n\nOne column per report; --label names them in order (default: target, profile and start time).\nExit code: 0, or 2 for a bad option or a file that is not a conformance report.`,
    );
    return 0;
  }
  if (positionals.length === 0) {
    console.error(`Give one or more conformance.json files.\n${COMPARE_USAGE}`);
    return 2;
  }
  let matrix;
  try {
    matrix = comparisonMatrix(positionals.map(readReport), values.label);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  if (values.markdown) writeFileSync(values.markdown, matrixMarkdown(matrix));
  if (values.html) writeFileSync(values.html, matrixHtml(matrix));
  if (!values.markdown && !values.html) process.stdout.write(matrixMarkdown(matrix));
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = compareReports(process.argv.slice(2));
}
