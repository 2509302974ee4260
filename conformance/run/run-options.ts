// The options of `npm run conformance`: the runner's own (the rows of run-option-table.ts, with
// their flags, and --help), and the `playwright test` options it passes on. Anything else is
// refused with the list of valid options (exit 2) rather than handed to Playwright, where a typo
// would change what runs without a word — after `--` too: an option written there (`--no-deps`,
// `--project=`, `--trace=on`) would reach Playwright unchecked and could leave out the set-up
// project, the preflight and its certificates, or write a trace holding the keys. Each flag's value is checked by its row as it is read:
// one set of bounds, a message that names the flag.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type FlagValues } from '../settings.ts';
import { attestationValues, type AttestationValues } from './attestation-options.ts';
import { flaggedRows, flagOptions, flagValuesOf } from './option-flags.ts';

export { UsageError };

const SETTING_ROWS = flaggedRows();

const OWN_OPTIONS = {
  ...flagOptions(SETTING_ROWS),
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/**
 * The `playwright test` options that make sense for a conformance run. Not among them: --trace,
 * --debug, --ui (a trace would record request headers, keys included), --config (the suite's own).
 */
const PLAYWRIGHT_OPTIONS = {
  grep: { type: 'string', short: 'g' },
  'grep-invert': { type: 'string' },
  shard: { type: 'string' },
  workers: { type: 'string', short: 'j' },
  list: { type: 'boolean' },
  retries: { type: 'string' },
  'repeat-each': { type: 'string' },
  'max-failures': { type: 'string' },
  timeout: { type: 'string' },
  'global-timeout': { type: 'string' },
  quiet: { type: 'boolean' },
  'pass-with-no-tests': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

export const PLAYWRIGHT_OPTIONS_HELP = `Playwright options passed on: ${Object.keys(PLAYWRIGHT_OPTIONS)
  .map((name) => `--${name}`)
  .join(', ')}
(e.g. --grep @KEY-REVOKED-REJECTED, --shard 1/2); test file names too.`;

export interface RunOptions {
  /** The settings' flags given, each checked (settings.ts resolves them over the environment). */
  flags: FlagValues;
  help: boolean;
  /** --bundle, --no-bundle, --sign-key as given, for what they cannot be given with. */
  attestation: AttestationValues;
  /** The arguments for `playwright test`, as the user wrote them. */
  passThrough: string[];
}

export function splitOptions(argv: readonly string[]): RunOptions {
  // `--` gives nothing a way past the check: what follows it is read as what precedes it, and an
  // option there that the kit has not declared is refused by name, every one of them.
  const terminator = argv.indexOf('--');
  const args = terminator < 0 ? [...argv] : [...argv.slice(0, terminator), ...argv.slice(terminator + 1)];
  const undeclared = (terminator < 0 ? [] : argv.slice(terminator + 1)).filter(
    (argument) => /^-./.test(argument) && !isDeclared(argument),
  );
  if (undeclared.length > 0)
    throw new UsageError(
      `${undeclared.join(', ')}: not an option of run. Only the options below reach Playwright, before \`--\` or after it; anything else could change what the run covers without the report knowing.\nValid options: ${validOptions().join(', ')}.`,
    );
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...OWN_OPTIONS, ...PLAYWRIGHT_OPTIONS },
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError(
      `${unknownOptionMessage(error as Error)}\nValid options: ${validOptions().join(', ')}.`,
    );
  }
  const { values, tokens } = parsed;
  const flags = flagValuesOf(SETTING_ROWS, values);
  const passThrough = tokens.flatMap((token) => {
    if (token.kind === 'option-terminator') return [];
    if (token.kind === 'positional') return [token.value];
    if (token.name in OWN_OPTIONS) return [];
    const written = args[token.index] ?? '';
    // `--grep=x` and `--list` are one argument; `--grep x` is two.
    return token.value === undefined || token.inlineValue ? [written] : [written, token.value];
  });
  return { flags, help: values.help === true, passThrough, attestation: attestationValues(values) };
}

/** Whether `argument` (`--grep`, `--grep=x`, `-g`) names an option of run. */
function isDeclared(argument: string): boolean {
  const options: ParseArgsConfig['options'] = { ...OWN_OPTIONS, ...PLAYWRIGHT_OPTIONS };
  const long = /^--([^=]+)/.exec(argument)?.[1];
  if (long !== undefined) return long in options;
  const short = argument.slice(1, 2);
  return Object.values(options).some((option) => 'short' in option && option.short === short);
}

function validOptions(): string[] {
  return [...Object.keys(OWN_OPTIONS), ...Object.keys(PLAYWRIGHT_OPTIONS)].map((name) => `--${name}`);
}

/**
 * parseArgs' refusal without its advice to put the option after `--`: after `--` it is refused
 * as well (an undeclared option never reaches Playwright), so the advice would only mislead.
 */
function unknownOptionMessage(error: Error): string {
  return error.message.replace(/\.? ?To specify a positional argument starting with a '-'.*$/s, '.');
}
