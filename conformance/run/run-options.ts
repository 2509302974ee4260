// The options of `npm run conformance`: the runner's own, and the `playwright test` options it
// passes on. Anything else is refused with the list of valid options (exit 2) rather than handed
// to Playwright, where a typo would change what runs without a word. Each value is checked here
// by the checks of conformance/settings.ts, which read the same settings back from the
// environment in every process of the run: one set of bounds, a message that names the flag.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  checkNumber,
  checkProfile,
  checkProtocols,
  UsageError,
  type NumberSetting,
  type Protocol,
} from '../settings.ts';
import { ATTESTATION_OPTIONS, attestationValues, type AttestationValues } from './attestation-options.ts';

export { UsageError };

/** The flag of each number setting. */
const NUMBER_FLAGS = {
  requestTimeout: 'request-timeout',
  maxRetries: 'max-retries',
  retryBudget: 'retry-budget',
  maxRps: 'max-rps',
  maxListPages: 'max-list-pages',
  maxListRecords: 'max-list-records',
} as const satisfies Record<NumberSetting, string>;

const OWN_OPTIONS = {
  target: { type: 'string' },
  profile: { type: 'string' },
  'fail-on-incomplete': { type: 'boolean' },
  reports: { type: 'string' },
  'request-timeout': { type: 'string' },
  'preflight-only': { type: 'boolean' },
  'max-retries': { type: 'string' },
  'retry-budget': { type: 'string' },
  'max-rps': { type: 'string' },
  'max-list-pages': { type: 'string' },
  'max-list-records': { type: 'string' },
  protocols: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...ATTESTATION_OPTIONS,
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
  values: {
    target?: string;
    profile?: string;
    failOnIncomplete: boolean;
    reports?: string;
    requestTimeout?: string;
    preflightOnly: boolean;
    maxRetries?: string;
    retryBudget?: string;
    maxRps?: string;
    maxListPages?: string;
    maxListRecords?: string;
    protocols?: Protocol[];
    help: boolean;
  };
  /** --bundle, --no-bundle, --sign-key (attestation-options.ts). */
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
  if (values.profile !== undefined) checkProfile(values.profile, '--profile');
  for (const [setting, flag] of Object.entries(NUMBER_FLAGS) as [
    NumberSetting,
    (typeof NUMBER_FLAGS)[NumberSetting],
  ][]) {
    const text = values[flag];
    if (text !== undefined) checkNumber(setting, text, `--${flag}`);
  }
  const protocols =
    values.protocols === undefined ? undefined : checkProtocols(values.protocols, '--protocols');
  const passThrough = tokens.flatMap((token) => {
    if (token.kind === 'option-terminator') return [];
    if (token.kind === 'positional') return [token.value];
    if (token.name in OWN_OPTIONS) return [];
    const written = argv[token.index] ?? '';
    // `--grep=x` and `--list` are one argument; `--grep x` is two.
    return token.value === undefined || token.inlineValue ? [written] : [written, token.value];
  });
  return {
    values: {
      target: values.target,
      profile: values.profile,
      failOnIncomplete: values['fail-on-incomplete'] === true,
      reports: values.reports,
      requestTimeout: values['request-timeout'],
      preflightOnly: values['preflight-only'] === true,
      maxRetries: values['max-retries'],
      retryBudget: values['retry-budget'],
      maxRps: values['max-rps'],
      maxListPages: values['max-list-pages'],
      maxListRecords: values['max-list-records'],
      ...(protocols ? { protocols } : {}),
      help: values.help === true,
    },
    passThrough,
    attestation: attestationValues(values),
  };
}
