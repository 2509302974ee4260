// `registry recheck --deployment D --version V --target FILE --sign-key FILE`: the registry checks a
// deployment itself. A vendor's run is its word about what ran (its key signs whatever it likes);
// here the registry's operator runs the kit against the deployment's bound target with keys the
// operator holds, signs the run with the registry's key and publishes it as the registry's own
// (`checked_by: registry`), which `can-i-ship --checked-by registry` alone answers from. The run is
// `run … --publish` (cli/commands/run.ts): the same suite, bundle and upload as a vendor's. The
// target file stays on the operator's machine: only the bundle (no key in it) reaches the registry.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTargetFile, TargetError } from '../../conformance/deployment/target.ts';
import { errorMessage, readToken, TOKEN_VARIABLE } from '../../registry/client.ts';
import { deploymentProblem, versionProblem } from '../../registry/publish/upload.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';
import { REGISTRY_CLIENT_FLAGS, registryProblems, withRegistry } from './registry-publish.ts';
import { main as run } from './run.ts';

/** Run options a re-check sets itself: given after `--`, they would make it another run. */
const OWN_RUN_OPTIONS = ['--target', '--base-url', '--sign-key', '--no-bundle', '--reports', '--publish'];

const HELP = `Usage: tenant-auth-conformance registry recheck --registry URL --deployment NAME --version V
                                                --target FILE --sign-key FILE [--token-file FILE]
                                                [--ca-file FILE] [--reports DIR] [-- RUN OPTIONS…]

The registry checks a deployment itself: runs the kit (tenant-auth-conformance run) against the
target FILE — the deployment's base URL, its other tenant and keys the operator holds — signs the
run with the registry's key (--sign-key: a key the operator's entry of the publishers file lists)
and publishes it with the operator's token as a run checked by the registry. can-i-ship
--checked-by registry answers only from such runs. The target must be the one the deployment is
bound to (checked before the run starts); the target file never leaves this machine.

Options:
  --deployment NAME, --version V
                        the deployment (published by its vendor already) and the version it runs now
  --target FILE         the target file, as run --target takes it (keep it private: it holds keys)
  --sign-key FILE       the registry's private signing key
  --reports DIR         keep the run's reports there (default: a temporary directory, removed after)
  --registry URL        the registry (https://…)
  --token-file FILE     the operator's token (default: $${TOKEN_VARIABLE})
  --ca-file FILE        a CA to trust besides the system's, for the registry
  -- RUN OPTIONS…       passed to run: --profile, --protocols, --grep… (a run that selects fewer rules
                        is stored as partial, and covers no can-i-ship question)
  --help                print this help

Exit codes: run's own (0 CONFORMANT, 1 NOT CONFORMANT…); 2 usage, also when the registry has no
such deployment or it is bound to another target (nothing is run); 3 the registry cannot be
reached or refused the run (the message says why).`;

export async function main(argv: string[]): Promise<number> {
  const dashes = argv.indexOf('--');
  const runOptions = dashes === -1 ? [] : argv.slice(dashes + 1);
  const parsed = commandArguments(
    dashes === -1 ? argv : argv.slice(0, dashes),
    {
      ...REGISTRY_CLIENT_FLAGS,
      deployment: { type: 'string' },
      version: { type: 'string' },
      target: { type: 'string' },
      'sign-key': { type: 'string' },
      reports: { type: 'string' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const own = runOptions.find((option) =>
    OWN_RUN_OPTIONS.some(
      (name) => option === name || option.startsWith(`${name}=`) || option.startsWith(`${name}-`),
    ),
  );
  const problems = [
    ...registryProblems(values.registry),
    ...[values.deployment === undefined ? 'Give --deployment NAME.' : deploymentProblem(values.deployment)],
    ...[values.version === undefined ? 'Give --version V.' : versionProblem(values.version)],
    ...(values.target === undefined
      ? ['Give --target FILE: the deployment as the operator reaches it.']
      : []),
    ...(values['sign-key'] === undefined ? ["Give --sign-key FILE: the registry's signing key."] : []),
    ...(own !== undefined
      ? [`${own} is the re-check's own to set; give it as a recheck option, or not at all.`]
      : []),
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return EXIT.usage;
  }
  const deployment = values.deployment ?? '';
  const target = values.target ?? '';
  // The registry first (a deployment it does not know needs no target), then the target file,
  // whose base URL must be the one the deployment is bound to: checked before minutes of running.
  let boundUrl: string | undefined;
  const known = await withRegistry(values, readToken(values['token-file']), async (client) => {
    const answer = await client.get(`/api/v1/deployments/${deployment}?limit=1`);
    if (answer.status === 404) {
      console.error(
        `The registry has no deployment named "${deployment}": it re-checks a deployment its vendor has published. Nothing was run.`,
      );
      // A bad argument, not a verdict: exit 1 would read as a failed deployment in a cron job.
      return EXIT.usage;
    }
    if (answer.status !== 200) {
      console.error(errorMessage(answer));
      return EXIT.setup;
    }
    boundUrl = (answer.json as { target?: { baseUrl?: string } }).target?.baseUrl;
    return EXIT.ok;
  });
  if (known !== EXIT.ok) return known;
  let baseUrl: string;
  try {
    baseUrl = readTargetFile(target).baseUrl;
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    console.error(error.message);
    return EXIT.usage;
  }
  if (boundUrl !== undefined && boundUrl.replace(/\/$/, '') !== baseUrl.replace(/\/$/, '')) {
    console.error(
      `${target} targets ${baseUrl}, but ${deployment} is bound to ${boundUrl}: a re-check checks the deployment's own target. Nothing was run.`,
    );
    return EXIT.usage;
  }
  const reports = values.reports ?? mkdtempSync(join(tmpdir(), 'registry-recheck-'));
  try {
    return await run(
      [
        ...runOptions,
        '--target',
        target,
        '--sign-key',
        values['sign-key'] ?? '',
        '--reports',
        reports,
        '--publish',
        values.registry ?? '',
        '--publish-deployment',
        deployment,
        '--publish-version',
        values.version ?? '',
        ...(values['token-file'] !== undefined ? ['--publish-token-file', values['token-file']] : []),
        ...(values['ca-file'] !== undefined ? ['--publish-ca-file', values['ca-file']] : []),
      ],
      { checkedByRegistry: true },
    );
  } finally {
    if (values.reports === undefined) rmSync(reports, { recursive: true, force: true });
  }
}
