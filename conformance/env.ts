// Every fixed-name environment variable of the conformance run, in one table. The settings' own
// (a user may set the documented ones) are the rows of run-option-table.ts, named here by their
// old keys too; the others are how Playwright's processes hand each other what they made or
// found: the resolved settings themselves (runSettings), the run's shared files, what the set-up
// project found. Families of names made from a key's name live with what makes them:
// CONFORMANCE_KEY_* of `run --base-url` (url-target.ts), CONFORMANCE_MINTED_* (key-minting.ts) and
// REFERENCE_KEY_* of the reference fixtures (embedded-target.ts); the mutation batch's own
// MUTATION_BATCH_PLAN is in mutation/batch-plan.ts.
import { RUN_OPTIONS, type RunSettings } from './run-option-table.ts';

/** The variable of a setting, as its row of run-option-table.ts names it. */
function variableOf(key: keyof RunSettings): string {
  const row = RUN_OPTIONS.find((candidate) => candidate.key === key);
  if (!row) throw new Error(`No run option ${key}.`);
  return row.variable;
}

/** The target and the run's settings. */
export const ENV = {
  targetFile: variableOf('targetFile'),
  profile: variableOf('profile'),
  /**
   * The run's settings as the entry point resolved them (JSON, conformance/settings.ts): the one
   * variable by which `run`, `merge` or the config hands them to Playwright's processes.
   */
  runSettings: 'CONFORMANCE_RUN_SETTINGS',
  /** The embedded reference server's ports, set by the worker that started it (embedded-in-worker.ts). */
  referenceHttpsPort: 'REFERENCE_HTTPS_PORT',
  referenceHttpPort: 'REFERENCE_HTTP_PORT',
  /** Seconds an exchange (TLS handshake included) may take: `--request-timeout`. */
  requestTimeout: variableOf('requestTimeoutMs'),
  /**
   * What the preflight found (JSON): in the run's state file (project-state.ts), where the set-up
   * project leaves it; the mutation campaign's batch sets it per variant (a project option).
   */
  preflight: 'CONFORMANCE_PREFLIGHT',
  /** `--preflight-only`: the preflight runs, no rule does, no report is written. */
  preflightOnly: variableOf('preflightOnly'),
  /** The count of consecutive exchanges without an answer, shared by the workers (answer-watch.ts). */
  answerWatchFile: 'CONFORMANCE_ANSWER_WATCH_FILE',
  /** The run's shared pace, retry budget and counts of transient answers (requests/shared-pacing.ts). */
  trafficFile: 'CONFORMANCE_TRAFFIC_FILE',
  /** `--max-rps`: requests per second the run never exceeds. */
  maxRps: variableOf('maxRps'),
  /** `--user-agent`: the User-Agent of every request, instead of common clients' in turn. */
  userAgent: variableOf('userAgent'),
  /** `--max-retries`: how often one request is sent again after a transient answer. */
  maxRetries: variableOf('maxRetries'),
  /** `--retry-budget`: seconds of waiting before retries, for the whole run. */
  retryBudget: variableOf('retryBudgetMs'),
  /** `--max-list-pages`: pages of one tenant's list the run follows, at most. */
  maxListPages: variableOf('maxListPages'),
  /** `--max-list-records`: records of one tenant's list after which the run follows no more pages. */
  maxListRecords: variableOf('maxListRecords'),
  /** The protocols the run speaks over TLS (`--protocols`, or what the target offers): h1,h2. */
  protocols: variableOf('protocols'),
  /** The protocols the target's ALPN showed it does not offer (h1, h2), set by the runner for the reports. */
  protocolsNotOffered: variableOf('protocolsNotOffered'),
  /** `merge`: the shards' own records (JSON files each shard's reporter left beside its blob). */
  shardRecords: 'CONFORMANCE_SHARD_RECORDS',
  /** Where the reporter writes the run's outcome for the runner's exit code (JSON). */
  outcomeFile: 'CONFORMANCE_OUTCOME_FILE',
  /** The directory of the run's shared files (conformance/run/projects.ts), made by the Playwright runner. */
  projectState: 'CONFORMANCE_PROJECT_STATE',
  /** The embedded reference server is started in-process by each worker that checks it. */
  embeddedInWorker: 'CONFORMANCE_EMBEDDED_IN_WORKER',
  /** The embedded server's certificate directory (the reference server's own variable). */
  referenceCertDir: 'REFERENCE_CERT_DIR',
} as const;

/** Where reports go, and whether INCOMPLETE fails the run. */
export const REPORT_ENV = {
  directory: variableOf('reportDirectory'),
  failOnIncomplete: variableOf('failOnIncomplete'),
} as const;

/** The run's certificate (conformance/attestation/): whether to write bundle/, and the key to sign it. */
export const ATTESTATION_ENV = {
  /** `1`: write bundle/ (`--bundle`); `0`: do not, even under strict (`--no-bundle`). */
  bundle: variableOf('bundle'),
  /** The path of the Ed25519 private key file (`--sign-key`); never the key itself. */
  signKey: variableOf('signKeyFile'),
} as const;

/**
 * The variables by which the processes of one run hand each other what they made or found: never
 * an input. A value of one in the environment a user starts the run in would stand for the run's
 * own (a preflight's certificates, the protocols "not offered", shard records, the state and
 * traffic files), so every way into a run (`run`, `merge`, a team's config) removes them first
 * (withoutHandOvers). The settings a user may set are the others of ENV, REPORT_ENV and
 * ATTESTATION_ENV.
 */
export const HAND_OVER_VARIABLES: readonly string[] = [
  ENV.runSettings,
  ENV.referenceHttpsPort,
  ENV.referenceHttpPort,
  ENV.preflight,
  ENV.answerWatchFile,
  ENV.trafficFile,
  ENV.protocolsNotOffered,
  ENV.shardRecords,
  ENV.outcomeFile,
  ENV.projectState,
  ENV.embeddedInWorker,
];

/** The family of the keys the set-up project mints, handed to the workers (key-minting.ts). */
export const MINTED_KEY_PREFIX = 'CONFORMANCE_MINTED_';

export function isHandOver(name: string): boolean {
  return HAND_OVER_VARIABLES.includes(name) || name.startsWith(MINTED_KEY_PREFIX);
}

/** `env` without any hand-over variable, and the names it had (for a warning). */
export function withoutHandOvers(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; ignored: string[] } {
  const ignored = Object.keys(env).filter(isHandOver).sort();
  const kept = { ...env };
  for (const name of ignored) delete kept[name];
  return { env: kept, ignored };
}

/** The line a command prints when it ignored hand-over variables of the environment it was started in. */
export function handOversIgnoredWarning(ignored: readonly string[]): string {
  return `Warning: ignored ${ignored.join(', ')} from the environment: a run's processes hand these to each other; they are never an input (the run's options and their variables are in --help).`;
}
