// `tenant-auth-conformance run [--target FILE] [--profile default|strict] [playwright options]`
// (in a clone: `npm run conformance -- …`). Checks the target file before anything starts (a
// clear message instead of a failed run), hands it to Playwright through the environment, and
// runs the suite. Without --target the embedded reference server is checked.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ENV, TargetError, resolveTarget } from './target.ts';
import { REPORT_ENV } from './report/settings.ts';
import { codeFile, isMainModule } from '../reference-server/package-root.ts';

const HELP = `Usage: tenant-auth-conformance run [options] [-- playwright test options]
       (in a clone of the repository: npm run conformance -- [options])

Runs the conformance suite. Without --target it starts the embedded reference server and checks it.

Options:
  --target FILE      a target file describing the deployment (see schemas/target.schema.json);
                     env ${ENV.targetFile}
  --profile NAME     default (HTTP-level rules warn) or strict (they fail); env ${ENV.profile}
  --fail-on-incomplete
                     exit 1 also when a MUST rule was not evaluated (verdict INCOMPLETE);
                     env ${REPORT_ENV.failOnIncomplete}=1
  --reports DIR      where reports are written (default reports/); env ${REPORT_ENV.directory}
  --help             print this help

Any other option is passed to \`playwright test\` (e.g. --grep @KEY-REVOKED-REJECTED, --shard 1/2).
Reports: DIR/conformance.md, conformance.json, junit.xml and html/ (Playwright's HTML report).
Exit code: 1 when the verdict is NOT CONFORMANT (a MUST rule failed, or under strict an HTTP
rule), or INCOMPLETE with --fail-on-incomplete; 2 for a bad target file or option; 0 otherwise.`;

/** The run with command-line arguments `argv` (without node and the script); returns the exit code. */
export function main(argv: string[]): number {
  const { values, tokens } = parseArgs({
    args: argv,
    options: {
      target: { type: 'string' },
      profile: { type: 'string' },
      'fail-on-incomplete': { type: 'boolean' },
      reports: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (values.help === true) {
    console.log(HELP);
    return 0;
  }
  const env = { ...process.env };
  if (typeof values.target === 'string') env[ENV.targetFile] = resolve(values.target);
  if (typeof values.profile === 'string') env[ENV.profile] = values.profile;
  if (values['fail-on-incomplete'] === true) env[REPORT_ENV.failOnIncomplete] = '1';
  if (typeof values.reports === 'string') env[REPORT_ENV.directory] = resolve(values.reports);
  const targetFile = env[ENV.targetFile];
  if (targetFile) {
    try {
      resolveTarget(resolve(targetFile), env);
    } catch (error) {
      if (!(error instanceof TargetError)) throw error;
      console.error(error.message);
      return 2;
    }
  } else if (env[ENV.profile] && !['default', 'strict'].includes(env[ENV.profile] ?? '')) {
    console.error(`Invalid --profile "${env[ENV.profile]}": use default or strict.`);
    return 2;
  }
  const ours = new Set(['target', 'profile', 'fail-on-incomplete', 'reports', 'help']);
  const passThrough = tokens.flatMap((token) => {
    if (token.kind === 'option' && ours.has(token.name)) return [];
    if (token.kind === 'option-terminator') return [];
    return [argv[token.index] ?? ''];
  });
  // The config and specs of this package, wherever it is installed; paths given by the user
  // stay relative to the directory the run was started in.
  const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const config = codeFile('playwright.config');
  const result = spawnSync(process.execPath, [playwright, 'test', '--config', config, ...passThrough], {
    stdio: 'inherit',
    env,
  });
  return result.status ?? 1;
}

if (isMainModule(import.meta.url)) process.exitCode = main(process.argv.slice(2));
