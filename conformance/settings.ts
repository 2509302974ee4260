// A run's settings, read and checked in one place. The runner's flags (run/run-options.ts), a team's
// config (library/projects.ts) and the environment a user sets all end up as the variables of
// env.ts, which the runner hands to Playwright's processes (config, set-up project, workers,
// reporter); each of them reads the settings back here, with `runSettings()`, never from
// `process.env` on its own (an eslint rule, `no-restricted-syntax` in eslint.config.js, says so).
// Every value is checked against the same bounds whichever way it came: a value out of bounds is
// a UsageError that names the flag or variable, the value and what is allowed — never a default.
// An empty variable is taken as unset, as a shell's `NAME= command` means.
import { resolve } from 'node:path';
import { ATTESTATION_ENV, ENV, REPORT_ENV } from './env.ts';

/** A setting given wrong: the runner prints the message and exits 2 (no stack trace). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type Profile = 'default' | 'strict';

export type Protocol = 'h1' | 'h2';

export const PROTOCOLS: readonly Protocol[] = ['h1', 'h2'];

/** `h1,h2` as given to --protocols; the reason when it names anything else. */
export function parseProtocols(text: string): { protocols: Protocol[] } | { error: string } {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((name) => !(PROTOCOLS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0)
    return { error: `name h1, h2 or both, separated by a comma (got "${text}")` };
  return { protocols: PROTOCOLS.filter((protocol) => names.includes(protocol)) };
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_RETRY_BUDGET_SECONDS = 60;
export const DEFAULT_MAX_LIST_PAGES = 10;
export const DEFAULT_MAX_LIST_RECORDS = 1000;
export const MAX_LIST_PAGES_LIMIT = 1000;
export const MAX_LIST_RECORDS_LIMIT = 100_000;

/** Everything a run is told, as every process of the run reads it. */
export interface RunSettings {
  /** `--target`: the target file (absolute); undefined: the embedded reference server. */
  targetFile: string | undefined;
  /** `--profile`; undefined: the target file's own, else `default`. */
  profile: Profile | undefined;
  /** `--protocols`, or what the runner found the target offers; undefined: not decided (HTTP/1.1). */
  protocols: readonly Protocol[] | undefined;
  /** What the target's ALPN showed it does not offer (the runner's finding, for the reports). */
  protocolsNotOffered: readonly Protocol[];
  /** `--request-timeout`: the longest one exchange may take, TLS handshake included. */
  requestTimeoutMs: number;
  /** `--max-rps`: requests per second the run never exceeds; undefined: unpaced until a 429. */
  maxRps: number | undefined;
  /** `--max-retries`: how often one request is sent again after a transient answer. */
  maxRetries: number;
  /** `--retry-budget`: the most the whole run waits before retries. */
  retryBudgetMs: number;
  /** `--max-list-pages`: pages of one tenant's list the run follows, at most. */
  maxListPages: number;
  /** `--max-list-records`: records of one tenant's list after which no further page is asked for. */
  maxListRecords: number;
  /** `--fail-on-incomplete`: exit 1 also on INCOMPLETE. */
  failOnIncomplete: boolean;
  /** `--reports`: where reports go (absolute). */
  reportDirectory: string;
  /** `--bundle` (true) or `--no-bundle` (false); undefined: by the profile (strict writes one). */
  bundle: boolean | undefined;
  /** `--sign-key`: the path of the Ed25519 private key file that signs the bundle; never the key. */
  signKeyFile: string | undefined;
  /** `--preflight-only`: the preflight runs, no rule does, no report is written. */
  preflightOnly: boolean;
}

/** How a number setting is bounded, and what its unit is called in a message. */
interface NumberBounds {
  min: number;
  max: number;
  unit: string;
  integer?: boolean;
  /** The minimum itself is not allowed ("more than 0"). */
  aboveMin?: boolean;
}

/** The bounds of every number setting: the flags, a team's config and the environment share them. */
export const NUMBER_BOUNDS = {
  requestTimeout: { min: 0, max: 600, unit: 'seconds', aboveMin: true },
  maxRetries: { min: 0, max: 20, unit: 'retries', integer: true },
  retryBudget: { min: 0, max: 3600, unit: 'seconds' },
  maxRps: { min: 0.1, max: 10_000, unit: 'requests per second' },
  maxListPages: { min: 1, max: MAX_LIST_PAGES_LIMIT, unit: 'pages', integer: true },
  maxListRecords: { min: 1, max: MAX_LIST_RECORDS_LIMIT, unit: 'records', integer: true },
} as const satisfies Record<string, NumberBounds>;

export type NumberSetting = keyof typeof NUMBER_BOUNDS;

/** The variable of each number setting. */
const NUMBER_VARIABLE: Readonly<Record<NumberSetting, string>> = {
  requestTimeout: ENV.requestTimeout,
  maxRetries: ENV.maxRetries,
  retryBudget: ENV.retryBudget,
  maxRps: ENV.maxRps,
  maxListPages: ENV.maxListPages,
  maxListRecords: ENV.maxListRecords,
};

function allowedNumbers(bounds: NumberBounds): string {
  const kind = bounds.integer ? 'a whole number' : 'a number';
  return bounds.aboveMin
    ? `give ${kind} of ${bounds.unit}, more than ${bounds.min} and at most ${bounds.max}`
    : `give ${kind} of ${bounds.unit} from ${bounds.min} to ${bounds.max}`;
}

/**
 * `text` as the number setting `setting`; a UsageError naming `named` (a flag such as
 * `--max-rps`, a variable, an option of a team's config) when it is out of bounds. `where` says
 * where it was given (` in the environment`), after the value.
 */
export function checkNumber(setting: NumberSetting, text: string, named: string, where = ''): number {
  const bounds: NumberBounds = NUMBER_BOUNDS[setting];
  const number = Number(text);
  const valid =
    text.trim() !== '' &&
    Number.isFinite(number) &&
    (bounds.aboveMin ? number > bounds.min : number >= bounds.min) &&
    number <= bounds.max &&
    (!bounds.integer || Number.isInteger(number));
  if (!valid) throw new UsageError(`Invalid ${named} "${text}"${where}: ${allowedNumbers(bounds)}.`);
  return number;
}

/** `text` as a profile, or a UsageError naming `named`. */
export function checkProfile(text: string, named: string, where = ''): Profile {
  if (text !== 'default' && text !== 'strict')
    throw new UsageError(`Invalid ${named} "${text}"${where}: use default or strict.`);
  return text;
}

/** `text` as a list of protocols, or a UsageError naming `named`. */
export function checkProtocols(text: string, named: string, where = ''): Protocol[] {
  const parsed = parseProtocols(text);
  if ('error' in parsed) throw new UsageError(`Invalid ${named}${where}: ${parsed.error}.`);
  return parsed.protocols;
}

const IN_ENVIRONMENT = ' in the environment';

/** A variable as the settings read it: an empty one is unset. */
function given(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A switch variable: 1 (on) or 0 (off); unset: undefined. */
function switchOf(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  if (value !== '1' && value !== '0')
    throw new UsageError(`Invalid ${name} "${value}"${IN_ENVIRONMENT}: use 1 (on) or 0 (off).`);
  return value === '1';
}

/**
 * The settings in `env`, checked; throws a UsageError that names the first variable given wrong.
 * Prefer `runSettings()` (the process's own) or `readRunSettings(env)` (memoised).
 */
function settingsOf(env: NodeJS.ProcessEnv): RunSettings {
  const number = (setting: NumberSetting): number | undefined => {
    const text = given(env, NUMBER_VARIABLE[setting]);
    return text === undefined
      ? undefined
      : checkNumber(setting, text, NUMBER_VARIABLE[setting], IN_ENVIRONMENT);
  };
  const profile = given(env, ENV.profile);
  const protocols = given(env, ENV.protocols);
  const notOffered = given(env, ENV.protocolsNotOffered);
  const targetFile = given(env, ENV.targetFile);
  const signKeyFile = given(env, ATTESTATION_ENV.signKey);
  return {
    targetFile: targetFile === undefined ? undefined : resolve(targetFile),
    profile: profile === undefined ? undefined : checkProfile(profile, ENV.profile, IN_ENVIRONMENT),
    protocols: protocols === undefined ? undefined : checkProtocols(protocols, ENV.protocols, IN_ENVIRONMENT),
    protocolsNotOffered:
      notOffered === undefined ? [] : checkProtocols(notOffered, ENV.protocolsNotOffered, IN_ENVIRONMENT),
    requestTimeoutMs: (number('requestTimeout') ?? DEFAULT_REQUEST_TIMEOUT_MS / 1000) * 1000,
    maxRps: number('maxRps'),
    maxRetries: number('maxRetries') ?? DEFAULT_MAX_RETRIES,
    retryBudgetMs: (number('retryBudget') ?? DEFAULT_RETRY_BUDGET_SECONDS) * 1000,
    maxListPages: number('maxListPages') ?? DEFAULT_MAX_LIST_PAGES,
    maxListRecords: number('maxListRecords') ?? DEFAULT_MAX_LIST_RECORDS,
    failOnIncomplete: switchOf(env, REPORT_ENV.failOnIncomplete) === true,
    reportDirectory: resolve(given(env, REPORT_ENV.directory) ?? 'reports'),
    bundle: switchOf(env, ATTESTATION_ENV.bundle),
    signKeyFile: signKeyFile === undefined ? undefined : resolve(signKeyFile),
    preflightOnly: switchOf(env, ENV.preflightOnly) === true,
  };
}

/** Every variable a setting is read from. */
export const SETTING_VARIABLES: readonly string[] = [
  ENV.targetFile,
  ENV.profile,
  ENV.protocols,
  ENV.protocolsNotOffered,
  ENV.preflightOnly,
  ...Object.values(NUMBER_VARIABLE),
  REPORT_ENV.directory,
  REPORT_ENV.failOnIncomplete,
  ATTESTATION_ENV.bundle,
  ATTESTATION_ENV.signKey,
];

/** Settings already read, by the variables' values (and the directory relative paths resolve in). */
const read = new Map<string, RunSettings>();

/**
 * The run's settings in `env`, checked once for each set of values: the workers and the reporter
 * read them often, and a process's environment may change under them (a team's config puts a
 * project's variables in place in each worker). Throws a UsageError naming what is wrong.
 */
export function readRunSettings(env: NodeJS.ProcessEnv): Readonly<RunSettings> {
  const key = JSON.stringify([process.cwd(), ...SETTING_VARIABLES.map((name) => env[name] ?? null)]);
  const known = read.get(key);
  if (known) return known;
  const settings = Object.freeze(settingsOf(env));
  // A run has one set of values; a test process may try many.
  if (read.size >= 64) read.clear();
  read.set(key, settings);
  return settings;
}

/** This process's run settings (`process.env`, as the runner handed it). */
export function runSettings(): Readonly<RunSettings> {
  return readRunSettings(process.env);
}
