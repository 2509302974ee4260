// `tenant-auth-conformance merge [--reports DIR] [--fail-on-incomplete] FOLDER` (in a clone:
// `npm run merge-reports -- …`). Merges the blob reports of a sharded run into the reports of one run, and exits by the merged
// verdict like `npm run conformance` does, so that a CI gate on the merge sees a failure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { ENV, REPORT_ENV } from '../../conformance/env.ts';
import { EXIT_CODE, EXIT_CODE_HELP } from '../../conformance/report/verdict.ts';
import { exitCodeOf } from '../../conformance/run/exit-code.ts';
import { codeFile } from '../../reference-server/package-root.ts';

const HELP = `Usage: tenant-auth-conformance merge [options] FOLDER
       (in a clone of the repository: npm run merge-reports -- [options] FOLDER)

Merges the blob reports of a sharded run (each shard's DIR/blob/, gathered in FOLDER) into one
run's reports: conformance.json, conformance.md, junit.xml and html/.

Options:
  --reports DIR         where the merged reports are written (default reports/); env ${REPORT_ENV.directory}
  --fail-on-incomplete  exit 1 also when the merged verdict is INCOMPLETE for lack of inputs;
                        env ${REPORT_ENV.failOnIncomplete}=1
  --help                print this help

${EXIT_CODE_HELP}`;

export function main(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        reports: { type: 'string' },
        'fail-on-incomplete': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    console.error(`${(error as Error).message}\nValid options: --reports, --fail-on-incomplete, --help.`);
    return EXIT_CODE.usage;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    console.log(HELP);
    return EXIT_CODE.ok;
  }
  const folder = positionals[0];
  if (positionals.length !== 1 || folder === undefined || !isDirectory(folder)) {
    console.error(
      `Give one folder that holds the shards' blob reports (each shard's reports/blob/ files).\n${HELP.split('\n')[0]}`,
    );
    return EXIT_CODE.usage;
  }
  const env = { ...process.env };
  if (values.reports !== undefined) env[REPORT_ENV.directory] = resolve(values.reports);
  if (values['fail-on-incomplete'] === true) env[REPORT_ENV.failOnIncomplete] = '1';
  const work = mkdtempSync(join(tmpdir(), 'conformance-outcome-'));
  env[ENV.outcomeFile] = join(work, 'outcome.json');
  try {
    const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
    const config = codeFile('playwright.config');
    const result = spawnSync(
      process.execPath,
      [playwright, 'merge-reports', '--config', config, resolve(folder)],
      {
        stdio: 'inherit',
        env,
      },
    );
    return exitCodeOf(join(work, 'outcome.json'), result.status);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
