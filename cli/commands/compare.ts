// `tenant-auth-conformance compare REPORT.json… [--label NAME]… [--markdown FILE] [--html FILE]`
// (in a clone: `npm run compare -- …`). Renders several conformance reports as one rule × target
// matrix. Without an output option the Markdown goes to stdout. Each --label names a column, in
// the order of the reports; by default a column is named by target, profile and start time.
import { readFileSync, writeFileSync } from 'node:fs';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import { comparisonMatrix, matrixHtml, matrixMarkdown } from '../../conformance/report/compare.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

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

const HELP = `Usage: tenant-auth-conformance compare REPORT.json… [--label NAME]… [--markdown FILE] [--html FILE]
       (in a clone of the repository: npm run compare -- …)

Renders the conformance.json reports of several runs as one rule × target matrix, one column per
report; --label names them in order (default: target, profile and start time). Without an
output option the Markdown goes to stdout.

Exit codes: 0 done, 2 a bad option or a file that is not a conformance report.`;

export function main(argv: readonly string[]): number {
  const parsed = commandArguments(
    argv,
    {
      markdown: { type: 'string' },
      html: { type: 'string' },
      label: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length === 0) {
    console.error(`Give one or more conformance.json files.\n\n${HELP}`);
    return EXIT.usage;
  }
  let matrix;
  try {
    matrix = comparisonMatrix(positionals.map(readReport), values.label);
  } catch (error) {
    console.error((error as Error).message);
    return EXIT.usage;
  }
  if (values.markdown) writeFileSync(values.markdown, matrixMarkdown(matrix));
  if (values.html) writeFileSync(values.html, matrixHtml(matrix));
  if (!values.markdown && !values.html) process.stdout.write(matrixMarkdown(matrix));
  return EXIT.ok;
}
