// The options of `npm run conformance`: the runner's own (the rows of run-option-table.ts, with
// their flags, and --help), and the `playwright test` options it passes on. Anything else is
// refused with the list of valid options (exit 2) rather than handed to Playwright, where a typo
// would change what runs without a word. Each flag's value is checked by its row as it is read:
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
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...OWN_OPTIONS, ...PLAYWRIGHT_OPTIONS },
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (error) {
    const valid = [...Object.keys(OWN_OPTIONS), ...Object.keys(PLAYWRIGHT_OPTIONS)].map(
      (name) => `--${name}`,
    );
    throw new UsageError(`${(error as Error).message}\nValid options: ${valid.join(', ')}.`);
  }
  const { values, tokens } = parsed;
  const flags = flagValuesOf(SETTING_ROWS, values);
  const passThrough = tokens.flatMap((token) => {
    if (token.kind === 'option-terminator') return [];
    if (token.kind === 'positional') return [token.value];
    if (token.name in OWN_OPTIONS) return [];
    const written = argv[token.index] ?? '';
    // `--grep=x` and `--list` are one argument; `--grep x` is two.
    return token.value === undefined || token.inlineValue ? [written] : [written, token.value];
  });
  return { flags, help: values.help === true, passThrough, attestation: attestationValues(values) };
}
