// A run's settings, resolved once at the entry point and handed down as one value. The options
// are the rows of run-option-table.ts; here they are read: from `run`'s flags and the
// environment (`resolveRunSettings`), or from the variables alone (`readRunSettings`), always
// with the row's bounds — a value out of bounds is a UsageError that names the flag or variable,
// the value and what is allowed, never a default. An empty variable is taken as unset, as a
// shell's `NAME= command` means.
//
// The entry points (the `run` and `merge` commands, playwright.config.ts, conformanceProjects in a
// team's config, the mutation campaign's batch config) resolve the settings and hand them down:
// to Playwright's runner in one variable (RUN_SETTINGS_VARIABLE, JSON), and from the config to
// the projects (the `runSettings` option) and the reporter. A worker installs its project's value
// (`useRunSettings`); the request layer reads it back with `runSettings()`. Nothing below the
// entry points reads a setting from the environment (an eslint rule, in eslint.config.js, says so).
import { ENV } from './env.ts';
import { UsageError } from './setting-checks.ts';
import { RUN_OPTIONS, SETTING_VARIABLES, type RunOptionRow, type RunSettings } from './run-option-table.ts';

export {
  checkNumber,
  checkProfile,
  checkProtocols,
  parseProtocols,
  PROTOCOLS,
  UsageError,
  type Profile,
  type Protocol,
} from './setting-checks.ts';
export {
  MAX_LIST_PAGES_LIMIT,
  MAX_LIST_RECORDS_LIMIT,
  RUN_OPTIONS,
  SETTING_VARIABLES,
  type RunSettings,
} from './run-option-table.ts';

const IN_ENVIRONMENT = ' in the environment';

/** A variable as the settings read it: an empty one is unset. */
function given(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** What `run`'s flags gave, by setting: a flag's text, or a switch's true (on) or false (off). */
export type FlagValues = Partial<Record<keyof RunSettings, string | boolean>>;

/** A row's value: its flag's (which wins), else its variable's, else its default. */
function valueOf(row: RunOptionRow, flags: FlagValues, env: NodeJS.ProcessEnv): unknown {
  const flagged = flags[row.key];
  if (typeof flagged === 'boolean') return flagged;
  if (flagged !== undefined) return row.parse(flagged, `--${row.flag ?? row.key}`, '');
  const text = given(env, row.variable);
  if (text !== undefined) return row.parse(text, row.variable, IN_ENVIRONMENT);
  return row.defaultText === undefined ? undefined : row.parse(row.defaultText, row.variable, '');
}

/**
 * The settings of `run`'s flags over the variables of `env`, checked; throws a UsageError that
 * names the first flag or variable given wrong. For an entry point only: below it, the settings
 * arrive as a value.
 */
export function resolveRunSettings(flags: FlagValues, env: NodeJS.ProcessEnv): Readonly<RunSettings> {
  return Object.freeze(
    Object.fromEntries(RUN_OPTIONS.map((row) => [row.key, valueOf(row, flags, env)])) as RunSettings,
  );
}

/** Settings already read, by the variables' values (and the directory relative paths resolve in). */
const read = new Map<string, Readonly<RunSettings>>();

/**
 * The run's settings in the variables of `env`, checked once for each set of values. For an entry
 * point only (the merge command, a campaign's batch); throws a UsageError naming what is wrong.
 */
export function readRunSettings(env: NodeJS.ProcessEnv): Readonly<RunSettings> {
  const key = JSON.stringify([process.cwd(), ...SETTING_VARIABLES.map((name) => env[name] ?? null)]);
  const known = read.get(key);
  if (known) return known;
  const settings = resolveRunSettings({}, env);
  // A run has one set of values; a test process may try many.
  if (read.size >= 64) read.clear();
  read.set(key, settings);
  return settings;
}

/** The one variable by which an entry point hands the resolved settings to Playwright's runner. */
export const RUN_SETTINGS_VARIABLE = ENV.runSettings;

/** The settings as handed over in RUN_SETTINGS_VARIABLE. */
export function handOverOf(settings: Readonly<RunSettings>): string {
  return JSON.stringify(settings);
}

/**
 * The settings an entry point handed over in `env` (RUN_SETTINGS_VARIABLE); undefined when none
 * did (Playwright started directly).
 */
export function handedOverSettings(env: NodeJS.ProcessEnv): Readonly<RunSettings> | undefined {
  const text = env[RUN_SETTINGS_VARIABLE];
  if (text === undefined || text === '') return undefined;
  const handed = parsedHandOver(text);
  // Every key, even one JSON leaves out because it is undefined.
  return Object.freeze(
    Object.fromEntries(RUN_OPTIONS.map((row) => [row.key, handed[row.key]])) as RunSettings,
  );
}

/**
 * The hand-over's JSON, refused whole when it is not what an entry point writes: a value left in a
 * shell by hand or by another tool would otherwise become a run's settings unchecked.
 */
function parsedHandOver(text: string): Partial<RunSettings> {
  const refuse = (why: string): never => {
    throw new UsageError(
      `${RUN_SETTINGS_VARIABLE} is set, but ${why}. It is the kit's own hand-over between its processes, not an option: unset it, and give settings as flags of \`tenant-auth-conformance run\` or as the CONFORMANCE_* variables of the options table.`,
    );
  };
  let handed: unknown;
  try {
    handed = JSON.parse(text);
  } catch {
    return refuse('it is not JSON');
  }
  if (typeof handed !== 'object' || handed === null || Array.isArray(handed))
    return refuse('it is not a JSON object');
  const known = new Set<string>(RUN_OPTIONS.map((row) => row.key));
  const unknown = Object.keys(handed).filter((key) => !known.has(key));
  // Counted, not named: whatever was put there is not echoed into a message (it may hold a key).
  if (unknown.length > 0) return refuse(`${unknown.length} of its fields name no option of a run`);
  return handed;
}

/** The settings of a process no entry point handed any to (a unit test): every default. */
const DEFAULTS: Readonly<RunSettings> = resolveRunSettings({}, {});

let inForce: Readonly<RunSettings> | undefined;

/**
 * Makes `settings` this process's: a worker does it with its project's `runSettings` option
 * before any rule runs (run/variant-world.ts; the mutation campaign's batch, with each test's
 * variant's), as does the set-up project.
 */
export function useRunSettings(settings: Readonly<RunSettings> | undefined): void {
  inForce = settings;
}

/** This process's run settings, as its project handed them (useRunSettings); else the defaults. */
export function runSettings(): Readonly<RunSettings> {
  return inForce ?? DEFAULTS;
}
