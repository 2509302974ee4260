// `tenant-auth-conformance run [options] [playwright test options]` (in a clone:
// `npm run conformance -- …`). Checks the options and the target file before anything starts (a
// clear message instead of a failed run), hands them to Playwright through the environment, runs
// the suite, and exits with the code of the verdict (conformance/report/verdict.ts), which the
// reporter leaves in a file. Without --target the embedded reference server is checked.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ENV, REPORT_ENV, handOversIgnoredWarning, withoutHandOvers } from '../env.ts';
import { TargetError, resolveTarget, type ResolvedTarget } from '../deployment/target.ts';
import { offeredProtocols, PROTOCOLS, type Protocol } from '../requests/protocols.ts';
import { trustedCas } from '../requests/ca-trust.ts';
import { EXIT_CODE, EXIT_CODE_HELP } from '../report/verdict.ts';
import { exitCodeOf } from './exit-code.ts';
import {
  DEFAULT_MAX_LIST_PAGES,
  DEFAULT_MAX_LIST_RECORDS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_BUDGET_SECONDS,
  MAX_LIST_PAGES_LIMIT,
  MAX_LIST_RECORDS_LIMIT,
  readRunSettings,
} from '../settings.ts';
import { PLAYWRIGHT_OPTIONS_HELP, UsageError, splitOptions } from './run-options.ts';
import { ATTESTATION_OPTIONS_HELP, applyAttestationOptions } from './attestation-options.ts';
import { codeFile, isMainModule } from '../../kit/package-root.ts';
import { kitProjectName } from './projects.ts';

const HELP = `Usage: tenant-auth-conformance run [options] [playwright test options]
       (in a clone of the repository: npm run conformance -- [options])

Runs the conformance suite. Without --target it starts the embedded reference server and checks it.
Before any rule, a preflight reaches every base URL the target declares (name resolution, TCP,
verified TLS, one HTTP answer); if the base URL under test cannot be reached, no rule runs and the
verdict is SETUP ERROR, naming the stage that failed and the fix.

Options:
  --target FILE      a target file describing the deployment (see schemas/target.schema.json);
                     env ${ENV.targetFile}
  --profile NAME     default (HTTP-level rules warn) or strict (they fail); env ${ENV.profile}
  --fail-on-incomplete
                     exit 1 also when the verdict is INCOMPLETE: a MUST rule not evaluated for
                     lack of an input, or under strict a partial run; env ${REPORT_ENV.failOnIncomplete}=1
  --reports DIR      where reports are written (default reports/); env ${REPORT_ENV.directory}
  --request-timeout SECONDS
                     the longest one exchange may take, TLS handshake included (default
                     ${DEFAULT_REQUEST_TIMEOUT_MS / 1000}); env ${ENV.requestTimeout}
  --preflight-only   run only the preflight and exit (0: the target can be reached; 3: not);
                     no report is written
  --max-retries N    how often one request is sent again after a transient answer (429, 502,
                     503, 504: never judged) before its rule ends as ERROR (default
                     ${DEFAULT_MAX_RETRIES}); env ${ENV.maxRetries}
  --retry-budget SECONDS
                     the most the whole run waits before retries (default
                     ${DEFAULT_RETRY_BUDGET_SECONDS}); env ${ENV.retryBudget}
  --protocols LIST   h1, h2 or h1,h2: the protocols every rule is checked over (default: each
                     one the target offers by ALPN — a port that offers h2 alone runs HTTP/2
                     alone, and the reports say HTTP/1.1 is not offered; the embedded reference
                     server: h1,h2);
                     env ${ENV.protocols}
  --max-rps N        never more than N requests per second, from the start (default: as fast as
                     the target allows; after a 429 the run slows to the rate it allows);
                     env ${ENV.maxRps}
  --max-list-pages N pages of one tenant's customer list the run follows (Link rel="next", a
                     next link or a cursor with has_more) to learn its data, at most (default
                     ${DEFAULT_MAX_LIST_PAGES}, 1 to ${MAX_LIST_PAGES_LIMIT}); env ${ENV.maxListPages}
  --max-list-records N
                     records of one tenant's list after which no further page is asked for
                     (default ${DEFAULT_MAX_LIST_RECORDS}, 1 to ${MAX_LIST_RECORDS_LIMIT}); env ${ENV.maxListRecords}
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
export async function main(argv: readonly string[]): Promise<number> {
  let options;
  try {
    options = splitOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\nRun with --help for the options.`);
    return EXIT_CODE.usage;
  }
  const { values, passThrough, attestation } = options;
  if (values.help) {
    console.log(runHelp());
    return EXIT_CODE.ok;
  }
  // What the run's own processes hand each other is never taken from the user's environment.
  const { env, ignored } = withoutHandOvers(process.env);
  if (ignored.length > 0) console.error(handOversIgnoredWarning(ignored));
  if (values.target !== undefined) env[ENV.targetFile] = resolve(values.target);
  if (values.profile !== undefined) env[ENV.profile] = values.profile;
  if (values.failOnIncomplete) env[REPORT_ENV.failOnIncomplete] = '1';
  if (values.reports !== undefined) env[REPORT_ENV.directory] = resolve(values.reports);
  if (values.requestTimeout !== undefined) env[ENV.requestTimeout] = values.requestTimeout;
  if (values.preflightOnly) env[ENV.preflightOnly] = '1';
  if (values.maxRetries !== undefined) env[ENV.maxRetries] = values.maxRetries;
  if (values.retryBudget !== undefined) env[ENV.retryBudget] = values.retryBudget;
  if (values.maxRps !== undefined) env[ENV.maxRps] = values.maxRps;
  if (values.maxListPages !== undefined) env[ENV.maxListPages] = values.maxListPages;
  if (values.maxListRecords !== undefined) env[ENV.maxListRecords] = values.maxListRecords;
  // The flags are in place: every setting, from a flag or the environment, is read and checked
  // now (with the certificate's options), as each process of the run will read it back
  // (conformance/settings.ts).
  const problem = applyAttestationOptions(attestation, env, (path) => resolve(path));
  if (problem !== undefined) {
    console.error(problem);
    return EXIT_CODE.usage;
  }
  const settings = readRunSettings(env);
  let target: ResolvedTarget | undefined;
  if (settings.targetFile) {
    try {
      target = resolveTarget(settings.targetFile, env);
    } catch (error) {
      if (!(error instanceof TargetError)) throw error;
      console.error(error.message);
      return EXIT_CODE.usage;
    }
  }
  const chosen = values.protocols ?? settings.protocols;
  const protocols = chosen ?? (await protocolsOffered(target, settings.requestTimeoutMs));
  env[ENV.protocols] = protocols.join(',');
  // What the target's ALPN showed it does not offer: the reports say so (a --protocols choice is the user's).
  if (chosen === undefined)
    env[ENV.protocolsNotOffered] = PROTOCOLS.filter((p) => !protocols.includes(p)).join(',');
  const work = mkdtempSync(join(tmpdir(), 'conformance-outcome-'));
  env[ENV.outcomeFile] = join(work, 'outcome.json');
  try {
    // Listing replaces every reporter: the configured ones would overwrite the last run's reports.
    if (passThrough.includes('--list'))
      passThrough.push(`--reporter=${codeFile('conformance/run/list-reporter')}`);
    // The preflight alone: the set-up project only, and only the conformance reporter, which then
    // writes no report.
    else if (values.preflightOnly)
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
      env,
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
async function protocolsOffered(target: ResolvedTarget | undefined, timeoutMs: number): Promise<Protocol[]> {
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
