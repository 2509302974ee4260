// `tenant-auth-conformance merge [DIR]` (in a clone: `npm run merge-reports`): the blob reports
// of sharded runs (reports/blob of each shard, gathered in one directory) rendered as one set of
// reports, with this package's config and reporters.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { codeFile } from '../../reference-server/package-root.ts';
import { EXIT, EXIT_CODES_HELP } from '../exit-codes.ts';

const HELP = `Usage: tenant-auth-conformance merge [options] DIR
       (in a clone of the repository: npm run merge-reports -- DIR)

Merges the blob reports in DIR (each shard's reports/blob, copied into one directory) into one
conformance report: conformance.md, conformance.json, junit.xml and html/ under reports/
(or CONFORMANCE_REPORT_DIR). Other options go to \`playwright merge-reports\`.

${EXIT_CODES_HELP}`;

export function main(argv: string[]): number {
  if (argv.includes('--help')) {
    console.log(HELP);
    return EXIT.ok;
  }
  if (!argv.some((argument) => !argument.startsWith('-'))) {
    console.error(`Give the directory that holds the blob reports.\n\n${HELP}`);
    return EXIT.usage;
  }
  const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const result = spawnSync(
    process.execPath,
    [playwright, 'merge-reports', '--config', codeFile('playwright.config'), ...argv],
    { stdio: 'inherit' },
  );
  return result.status ?? EXIT.setup;
}
