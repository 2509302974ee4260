// The one channel between the kit's processes, and the one file of the kit that names
// `process.env` (tests/conformance/run/env-channel.test.ts holds every other file of conformance/,
// cli/, library/, kit/ and mutation/ to it). Two kinds of variable pass through it:
//
// - Hand-overs (HAND_OVERS): what the kit's own processes give each other — the `run` command to
//   its Playwright runner, the config to its workers, the set-up project to the rule workers and
//   the reporters. Each is declared below once: its name, its type, who writes it, who reads it.
//   They are never an input: every way into a run (`run`, `merge`, a team's config) removes them
//   from the environment the user started it in (startingEnvironment, forgetHandOvers), and
//   they are read with handOver() and written with handOverVariables() or setHandOvers() alone.
// - Inputs: what the user gives. The settings' variables are the rows of run-option-table.ts (ENV,
//   REPORT_ENV and ATTESTATION_ENV name them), resolved once at an entry point (settings.ts); the
//   others are read from inputEnvironment() where they are used: the key variables a target file
//   names (deployment/target.ts) and CONFORMANCE_KEY_* of `run --base-url` (url-target.ts), a key
//   minting admin token, NODE_EXTRA_CA_CERTS (requests/ca-trust.ts, run-target.ts), the
//   reference fixtures' REFERENCE_KEY_* and REFERENCE_CERT_DIR (embedded-target.ts), the
//   terminal's NO_COLOR/FORCE_COLOR/TERM (report/console.ts), the admin URL of `client-report`,
//   Playwright's CI, TEST_WORKER_INDEX and PLAYWRIGHT_JSON_OUTPUT_NAME. A config hands some of them
//   on to its workers unchanged (setForWorkers): that is passing an input along, not a hand-over.
import { RUN_OPTIONS, type RunSettings } from './run-option-table.ts';

/** The variable of a setting, as its row of run-option-table.ts names it. */
function variableOf(key: keyof RunSettings): string {
  const row = RUN_OPTIONS.find((candidate) => candidate.key === key);
  if (!row) throw new Error(`No run option ${key}.`);
  return row.variable;
}

/** What a hand-over's value is. */
export type HandOverType = 'json' | 'path' | 'port' | 'flag';

/** A variable by which the kit's processes hand each other what they made or found. */
export interface HandOver {
  name: string;
  type: HandOverType;
  /** The process (and file) that sets it. */
  writer: string;
  /** The processes (and files) that read it. */
  readers: string;
}

/** Every hand-over of the kit, once. The family CONFORMANCE_MINTED_* is MINTED_KEY_PREFIX's. */
export const HAND_OVERS = {
  runSettings: {
    name: 'CONFORMANCE_RUN_SETTINGS',
    type: 'json',
    writer:
      'the entry point that resolved the settings: `run`, `merge`, or playwright.config.ts started directly (settings.ts, handOverOf)',
    readers: "the Playwright runner's config and its workers, which load it again (playwright.config.ts)",
  },
  referenceHttpsPort: {
    name: 'REFERENCE_HTTPS_PORT',
    type: 'port',
    writer: 'the worker that started the embedded reference server (run/embedded-in-worker.ts)',
    readers: "that worker's target binding (deployment/embedded-target.ts, onReferencePorts)",
  },
  referenceHttpPort: {
    name: 'REFERENCE_HTTP_PORT',
    type: 'port',
    writer: 'the worker that started the embedded reference server (run/embedded-in-worker.ts)',
    readers: "that worker's target binding (deployment/embedded-target.ts, onReferencePorts)",
  },
  preflight: {
    name: 'CONFORMANCE_PREFLIGHT',
    type: 'json',
    writer:
      "the set-up project, in the run's state file (run/project-setup.ts); the mutation campaign, per variant",
    readers: 'the rule workers and the conformance reporter (run/preflight-state.ts)',
  },
  answerWatchFile: {
    name: 'CONFORMANCE_ANSWER_WATCH_FILE',
    type: 'path',
    writer: "the config, in the projects' runEnvironment (run/projects.ts)",
    readers: 'the rule workers (requests/answer-watch.ts)',
  },
  trafficFile: {
    name: 'CONFORMANCE_TRAFFIC_FILE',
    type: 'path',
    writer:
      "the config, in the projects' runEnvironment (run/projects.ts); the mutation campaign's batch, per variant",
    readers: 'every process that sends (requests/shared-pacing.ts) and the reporter (run/preflight-state.ts)',
  },
  protocolsNotOffered: {
    name: variableOf('protocolsNotOffered'),
    type: 'json',
    writer: "`run`, inside the settings' hand-over (run/run.ts); its row of the option table names it",
    readers: 'the reports, through the settings (settings.ts)',
  },
  shardRecords: {
    name: 'CONFORMANCE_SHARD_RECORDS',
    type: 'path',
    writer: '`merge`, for the merge-reports runner it starts (cli/commands/merge.ts)',
    readers: 'the conformance reporter of that merge (run/reporter.ts)',
  },
  outcomeFile: {
    name: 'CONFORMANCE_OUTCOME_FILE',
    type: 'path',
    writer: '`run` and `merge`, for the runner they start (run/run.ts, cli/commands/merge.ts)',
    readers: 'the conformance reporter, which writes the outcome there for the exit code (run/reporter.ts)',
  },
  projectState: {
    name: 'CONFORMANCE_PROJECT_STATE',
    type: 'path',
    writer: "the Playwright runner's config, which makes the run's state directory (run/projects.ts)",
    readers: 'the workers, the set-up and teardown projects, the reporter (run/project-state.ts)',
  },
  embeddedInWorker: {
    name: 'CONFORMANCE_EMBEDDED_IN_WORKER',
    type: 'flag',
    writer:
      "the config, in the projects' runEnvironment, when the target is the embedded server (run/projects.ts)",
    readers: 'each worker, which then starts the server in-process (run/projects.ts)',
  },
  batchVariants: {
    name: 'CONFORMANCE_KIT_BATCH_VARIANTS',
    type: 'json',
    writer: "the mutation batch's config (mutation/batch.config.ts)",
    readers: 'the specs, loaded by each worker, which register each rule per variant (run/batch-variants.ts)',
  },
  batchPlan: {
    name: 'MUTATION_BATCH_PLAN',
    type: 'path',
    writer: 'the mutation campaign, for the batch runner it starts (mutation/campaign.ts)',
    readers: "the batch's config and reporter (mutation/batch-plan.ts)",
  },
} as const satisfies Record<string, HandOver>;

export type HandOverKey = keyof typeof HAND_OVERS;

/** The target and the run's settings; the hand-overs by the same keys as in HAND_OVERS. */
export const ENV = {
  targetFile: variableOf('targetFile'),
  profile: variableOf('profile'),
  /**
   * The run's settings as the entry point resolved them (JSON, conformance/settings.ts): the one
   * variable by which `run`, `merge` or the config hands them to Playwright's processes.
   */
  runSettings: HAND_OVERS.runSettings.name,
  /** The embedded reference server's ports, set by the worker that started it (embedded-in-worker.ts). */
  referenceHttpsPort: HAND_OVERS.referenceHttpsPort.name,
  referenceHttpPort: HAND_OVERS.referenceHttpPort.name,
  /** Seconds an exchange (TLS handshake included) may take: `--request-timeout`. */
  requestTimeout: variableOf('requestTimeoutMs'),
  /** What the preflight found (JSON): in the run's state file (project-state.ts); a batch's, per variant. */
  preflight: HAND_OVERS.preflight.name,
  /** `--preflight-only`: the preflight runs, no rule does, no report is written. */
  preflightOnly: variableOf('preflightOnly'),
  /** The count of consecutive exchanges without an answer, shared by the workers (answer-watch.ts). */
  answerWatchFile: HAND_OVERS.answerWatchFile.name,
  /** The run's shared pace, retry budget and counts of transient answers (requests/shared-pacing.ts). */
  trafficFile: HAND_OVERS.trafficFile.name,
  /** `--max-rps`: requests per second the run never exceeds. */
  maxRps: variableOf('maxRps'),
  /** `--user-agent`: the User-Agent of every request, instead of common clients' (picked per request by its rule and index). */
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
  protocolsNotOffered: HAND_OVERS.protocolsNotOffered.name,
  /** `merge`: the shards' own records (JSON files each shard's reporter left beside its blob). */
  shardRecords: HAND_OVERS.shardRecords.name,
  /** Where the reporter writes the run's outcome for the runner's exit code (JSON). */
  outcomeFile: HAND_OVERS.outcomeFile.name,
  /** The directory of the run's shared files (conformance/run/projects.ts), made by the Playwright runner. */
  projectState: HAND_OVERS.projectState.name,
  /** The embedded reference server is started in-process by each worker that checks it. */
  embeddedInWorker: HAND_OVERS.embeddedInWorker.name,
  /** The mutation batch's variants, whose rules the specs register (run/batch-variants.ts). */
  batchVariants: HAND_OVERS.batchVariants.name,
  /** The mutation batch's plan file (mutation/batch-plan.ts). */
  batchPlan: HAND_OVERS.batchPlan.name,
  /** The embedded server's certificate directory: an input, the reference server's own variable. */
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

/** The names of HAND_OVERS: never an input (see the head of this file). */
export const HAND_OVER_VARIABLES: readonly string[] = Object.values(HAND_OVERS).map((row) => row.name);

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

/** An environment as the kit reads it: this process's (inputEnvironment), a child's, a test's. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** A hand-over's value in `env`, or in this process's environment when none is given. */
export function handOver(key: HandOverKey, env: Environment = process.env): string | undefined {
  return env[HAND_OVERS[key].name];
}

/** The variables that hand `values` over, for a child's environment or a project's runEnvironment. */
export function handOverVariables(values: Partial<Record<HandOverKey, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).flatMap(([key, value]) =>
      value === undefined ? [] : [[HAND_OVERS[key as HandOverKey].name, value]],
    ),
  );
}

/**
 * Makes hand-overs this process's, for what it reads next and the processes it starts (a worker
 * entering its run, the runner naming its state directory). Refuses any other variable: an input
 * never enters a run this way.
 */
export function setHandOvers(variables: Readonly<Record<string, string>>): void {
  const others = Object.keys(variables).filter((name) => !isHandOver(name));
  if (others.length > 0)
    throw new Error(`Not hand-overs of the kit (conformance/env.ts): ${others.join(', ')}.`);
  Object.assign(process.env, variables);
}

/** Takes hand-overs back from this process (a worker leaving one run of a batch for another). */
export function removeHandOvers(names: readonly string[]): void {
  for (const name of names) if (isHandOver(name)) delete process.env[name];
}

/**
 * This process's environment, for its inputs: the variables a target file names, the terminal's,
 * NODE_EXTRA_CA_CERTS. In the kit's own processes it holds the hand-overs too; those are read with
 * handOver(), never from here.
 */
export function inputEnvironment(): Environment {
  return process.env;
}

/**
 * The environment a user started an entry point (`run`, `merge`) in, without any hand-over, and
 * the names it had (for handOversIgnoredWarning). The entry point resolves its settings from it and
 * gives it, with its own hand-overs, to the runner it starts.
 */
export function startingEnvironment(): { env: NodeJS.ProcessEnv; ignored: string[] } {
  return withoutHandOvers(process.env);
}

/**
 * Removes the hand-overs of the environment this process was started in, and returns their names:
 * the runner of a team's config, which is its own entry point, before it sets any of its own.
 */
export function forgetHandOvers(): string[] {
  const { ignored } = withoutHandOvers(process.env);
  for (const name of ignored) delete process.env[name];
  return ignored;
}

/**
 * Passes inputs on to the processes this one starts (a config to its workers): the trust Node reads
 * at start-up (NODE_EXTRA_CA_CERTS), the embedded reference's certificate directory and its public
 * test keys. `keep`: a value the user set stays. A hand-over is refused: they go by setHandOvers.
 */
export function setForWorkers(variables: Readonly<Record<string, string>>, keep = false): void {
  const handOvers = Object.keys(variables).filter(isHandOver);
  if (handOvers.length > 0) throw new Error(`Hand-overs, not inputs: ${handOvers.join(', ')}.`);
  for (const [name, value] of Object.entries(variables))
    if (!keep || process.env[name] === undefined) process.env[name] = value;
}

/** The hand-overs of `env` alone (a batch variant's, whose settings are resolved apart). */
export function onlyHandOvers(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => isHandOver(name)));
}
