// `tenant-auth-conformance run [options] [playwright test options]` (in a clone:
// `npm run conformance -- …`). Checks the options and the target file before anything starts (a
// clear message instead of a failed run), hands them to Playwright through the environment, runs
// the suite, and exits with the code of the verdict (conformance/report/verdict.ts), which the
// reporter leaves in a file. Without --target the embedded reference server is checked.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENV, handOversIgnoredWarning, startingEnvironment } from '../env.ts';
import { TargetError, resolveTarget, type ResolvedTarget } from '../deployment/target.ts';
import { offeredProtocols, PROTOCOLS, type Protocol } from '../requests/protocols.ts';
import { trustedCas } from '../requests/ca-trust.ts';
import { EXIT_CODE, EXIT_CODE_HELP } from '../report/verdict.ts';
import { exitCodeOf } from './exit-code.ts';
import { handOverOf, resolveRunSettings, RUN_SETTINGS_VARIABLE, type RunSettings } from '../settings.ts';
import { PLAYWRIGHT_OPTIONS_HELP, UsageError, splitOptions } from './run-options.ts';
import {
  ATTESTATION_OPTIONS_HELP,
  attestationFlagsProblem,
  attestationSettingsProblem,
} from './attestation-options.ts';
import { optionHelp } from './option-help.ts';
import { codeFile, kitPlaywrightEnvironment, isMainModule } from '../../kit/package-root.ts';
import { kitProjectName } from './projects.ts';

const HELP = `Usage: tenant-auth-conformance run [options] [playwright test options]
       (in a clone of the repository: npm run conformance -- [options])

Runs the conformance suite. Without --target it starts the embedded reference server and checks it.
Before any rule, a preflight reaches every base URL the target declares (name resolution, TCP,
verified TLS, one HTTP answer); if the base URL under test cannot be reached, no rule runs and the
verdict is SETUP ERROR, naming the stage that failed and the fix.

Options:
${optionHelp('run')}
  --help             print this help

The run's certificate (docs/certification.md; check one with \`verify DIR\`):
${ATTESTATION_OPTIONS_HELP}

${PLAYWRIGHT_OPTIONS_HELP}
--list prints the rules selected and writes no report.
Reports: DIR/conformance.html, conformance.md, conformance.json, junit.xml, exchanges.har and
html/ (Playwright's HTML report, for debugging the suite).
`;

/**
 * The help of `run`: its options, then `extra` (options the command line adds of its own, such as
 * a target by URL), then the exit codes — one table, at the end.
 */
export function runHelp(extra = ''): string {
  return `${HELP}${extra}\n${EXIT_CODE_HELP}`;
}

/** The run with command-line arguments `argv` (without node and the script); returns the exit code. */
/** Told the settings a run resolved, once they are checked: `run --publish` sends that run's bundle. */
export type SettingsResolved = (settings: Readonly<RunSettings>) => void;

export async function main(argv: readonly string[], resolved?: SettingsResolved): Promise<number> {
  let options;
  try {
    options = splitOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\nRun with --help for the options.`);
    return EXIT_CODE.usage;
  }
  const { flags, help, passThrough, attestation } = options;
  if (help) {
    console.log(runHelp());
    return EXIT_CODE.ok;
  }
  const flagsProblem = attestationFlagsProblem(attestation);
  if (flagsProblem !== undefined) {
    console.error(flagsProblem);
    return EXIT_CODE.usage;
  }
  // What the run's own processes hand each other is never taken from the user's environment.
  const { env, ignored } = startingEnvironment();
  if (ignored.length > 0) console.error(handOversIgnoredWarning(ignored));
  // Every setting, from a flag or the environment, is resolved and checked here, once; Playwright's
  // processes receive the result (RUN_SETTINGS_VARIABLE), never the flags or variables again.
  let settings: Readonly<RunSettings>;
  try {
    settings = resolveRunSettings(flags, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    return EXIT_CODE.usage;
  }
  const problem = attestationSettingsProblem(settings);
  if (problem !== undefined) {
    console.error(problem);
    return EXIT_CODE.usage;
  }
  resolved?.(settings);
  let target: ResolvedTarget | undefined;
  if (settings.targetFile) {
    try {
      target = resolveTarget(settings.targetFile, env, settings.profile);
    } catch (error) {
      if (!(error instanceof TargetError)) throw error;
      console.error(error.message);
      return EXIT_CODE.usage;
    }
  }
  const chosen = settings.protocols;
  const protocols = chosen ?? (await protocolsOffered(target, settings.requestTimeoutMs));
  env[RUN_SETTINGS_VARIABLE] = handOverOf({
    ...settings,
    protocols,
    // What the target's ALPN showed it does not offer: the reports say so (a --protocols choice is the user's).
    protocolsNotOffered: chosen === undefined ? PROTOCOLS.filter((p) => !protocols.includes(p)) : [],
  });
  const work = mkdtempSync(join(tmpdir(), 'conformance-outcome-'));
  env[ENV.outcomeFile] = join(work, 'outcome.json');
  try {
    // Listing replaces every reporter: the configured ones would overwrite the last run's reports.
    if (passThrough.includes('--list'))
      passThrough.push(`--reporter=${codeFile('conformance/run/list-reporter')}`);
    // The preflight alone: the set-up project only, and only the conformance reporter, which then
    // writes no report.
    else if (settings.preflightOnly)
      passThrough.push(
        `--project=${kitProjectName('', 'set-up')}`,
        `--reporter=${codeFile('conformance/run/reporter')}`,
      );
    // The config and specs of this package, wherever it is installed; paths given by the user
    // stay relative to the directory the run was started in.
    const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
    const config = codeFile('playwright.config');
    const result = spawnSync(process.execPath, [playwright, 'test', '--config', config, ...passThrough], {
      stdio: 'inherit',
      env: kitPlaywrightEnvironment(env),
    });
    return exitCodeOf(join(work, 'outcome.json'), result.status);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
/**
 * What the target agrees to by ALPN; the embedded reference server speaks both. The preflight
 * (the set-up project) then says why a target could not be reached, if it can't.
 */
export async function protocolsOffered(
  target: ResolvedTarget | undefined,
  timeoutMs: number,
): Promise<Protocol[]> {
  if (!target) return ['h1', 'h2'];
  let ca: string[] | undefined;
  try {
    ca = trustedCas(target.caFile);
  } catch {
    // An unreadable CA file is the preflight's to report, with its fix.
    return ['h1'];
  }
  return offeredProtocols(target.baseUrl, { hosts: target.hosts, ca, timeoutMs });
}

if (isMainModule(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
