// `tenant-auth-conformance merge [--reports DIR] [--fail-on-incomplete] FOLDER` (in a clone:
// `npm run merge-reports -- …`). Merges the blob reports of a sharded run into the reports of one run, and exits by the merged
// verdict like `npm run conformance` does, so that a CI gate on the merge sees a failure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { ENV, REPORT_ENV, handOversIgnoredWarning, startingEnvironment } from '../../conformance/env.ts';
import {
  handOverOf,
  resolveRunSettings,
  RUN_SETTINGS_VARIABLE,
  UsageError,
  type RunSettings,
} from '../../conformance/settings.ts';
import { flagOptions, flagValuesOf, rowsOf } from '../../conformance/run/option-flags.ts';
import { EXIT_CODE, EXIT_CODE_HELP } from '../../conformance/report/verdict.ts';
import { exitCodeOf } from '../../conformance/run/exit-code.ts';
import { codeFile, kitPlaywrightEnvironment } from '../../kit/package-root.ts';
import {
  ATTESTATION_OPTIONS_HELP,
  ATTESTATION_ROWS,
  attestationFlagsProblem,
  attestationSettingsProblem,
  attestationValues,
} from '../../conformance/run/attestation-options.ts';

/** The settings a merge takes flags for: where its reports go, its exit code, its certificate. */
const MERGE_ROWS = [...rowsOf(['reportDirectory', 'failOnIncomplete']), ...ATTESTATION_ROWS];
import { readShardRecords, shardDisagreements } from '../../conformance/report/shard-records.ts';
import { blobFilesUnder, gatheredFolder, noBlobsMessage } from './blob-folder.ts';

const HELP = `Usage: tenant-auth-conformance merge [options] FOLDER
       (in a clone of the repository: npm run merge-reports -- [options] FOLDER)

Merges the blob reports of a sharded run (each shard's DIR/blob/, gathered in FOLDER) into one
run's reports: conformance.json, conformance.md, junit.xml and html/. Each shard's blob/ also
holds its record (conformance-shard-N-of-M.json: its target, kit, catalog, options and
certificates); the merged report carries them, and its bundle certifies the merged run.
The blob reports of a team's own playwright.config.ts merge the same way: gather each shard's
blob reporter folder (blob-report/ by default) and the record conformanceReporter() leaves in
its outputDir's blob/. FOLDER may hold them directly or in a folder per shard, as a CI job's
artifact download leaves them (up to four levels down).

Options:
  --reports DIR         where the merged reports are written (default reports/); env ${REPORT_ENV.directory}
  --fail-on-incomplete  exit 1 also when the merged verdict is INCOMPLETE (for lack of inputs, or
                        under strict a partial run); env ${REPORT_ENV.failOnIncomplete}=1
  --help                print this help

The merged run's certificate (check it with \`verify DIR\`):
${ATTESTATION_OPTIONS_HELP}

${EXIT_CODE_HELP}`;

export function main(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        ...flagOptions(MERGE_ROWS),
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    console.error(
      `${(error as Error).message}\nValid options: --reports, --fail-on-incomplete, --bundle, --no-bundle, --sign-key, --help.`,
    );
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
  // What the run's own processes hand each other (shard records, the outcome file) is never taken
  // from the user's environment.
  const { env, ignored } = startingEnvironment();
  if (ignored.length > 0) console.error(handOversIgnoredWarning(ignored));
  const flagsProblem = attestationFlagsProblem(attestationValues(values));
  if (flagsProblem !== undefined) {
    console.error(flagsProblem);
    return EXIT_CODE.usage;
  }
  // The merge's settings, resolved here once and handed to Playwright's merge-reports as one value.
  let settings: Readonly<RunSettings>;
  try {
    settings = resolveRunSettings(flagValuesOf(MERGE_ROWS, values), env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    return EXIT_CODE.usage;
  }
  const attestationProblem = attestationSettingsProblem(settings);
  if (attestationProblem !== undefined) {
    console.error(attestationProblem);
    return EXIT_CODE.usage;
  }
  env[RUN_SETTINGS_VARIABLE] = handOverOf(settings);
  const found = blobFilesUnder(resolve(folder));
  if (found.blobs.length === 0) {
    console.error(noBlobsMessage(folder));
    return EXIT_CODE.usage;
  }
  const work = mkdtempSync(join(tmpdir(), 'conformance-outcome-'));
  try {
    let records;
    let blobs: string;
    try {
      blobs = gatheredFolder(resolve(folder), found, join(work, 'blobs'));
      records = readShardRecords(blobs);
    } catch (error) {
      console.error((error as Error).message);
      return EXIT_CODE.usage;
    }
    for (const disagreement of shardDisagreements(records))
      console.error(`Warning: ${disagreement} verify refuses the bundle of such a merge.`);
    env[ENV.outcomeFile] = join(work, 'outcome.json');
    if (records.length > 0) {
      const recordsFile = join(work, 'shards.json');
      writeFileSync(recordsFile, JSON.stringify(records));
      env[ENV.shardRecords] = recordsFile;
    }
    const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
    const config = codeFile('playwright.config');
    const result = spawnSync(process.execPath, [playwright, 'merge-reports', '--config', config, blobs], {
      stdio: ['inherit', 'inherit', 'pipe'],
      encoding: 'utf8',
      env: kitPlaywrightEnvironment(env),
    });
    // Playwright's own errors (a blob it cannot read) come with its stack: the message is enough.
    process.stderr.write(withoutStackFrames(result.stderr ?? ''));
    return exitCodeOf(join(work, 'outcome.json'), result.status);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `text` without the frame lines of a stack trace (`    at …`). */
export function withoutStackFrames(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s+at \S/.test(line))
    .join('\n');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
