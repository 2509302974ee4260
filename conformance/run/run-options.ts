// The options of `npm run conformance`: the runner's own, and the `playwright test` options it
// passes on. Anything else is refused with the list of valid options (exit 2) rather than handed
// to Playwright, where a typo would change what runs without a word.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseProtocols, type Protocol } from '../requests/protocols.ts';
import { MAX_LIST_PAGES_LIMIT, MAX_LIST_RECORDS_LIMIT } from '../judging/pages.ts';
import { ATTESTATION_OPTIONS, attestationValues, type AttestationValues } from './attestation-options.ts';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

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
  if (values.profile !== undefined && values.profile !== 'default' && values.profile !== 'strict')
    throw new UsageError(`Invalid --profile "${values.profile}": use default or strict.`);
  const timeout = values['request-timeout'];
  if (timeout !== undefined && !(Number(timeout) > 0 && Number(timeout) <= 600))
    throw new UsageError(
      `Invalid --request-timeout "${timeout}": give a number of seconds, more than 0 and at most 600.`,
    );
  checkNumber('--max-retries', values['max-retries'], { min: 0, max: 20, integer: true, unit: 'retries' });
  checkNumber('--retry-budget', values['retry-budget'], { min: 0, max: 3600, unit: 'seconds' });
  checkNumber('--max-rps', values['max-rps'], { min: 0.1, max: 10_000, unit: 'requests per second' });
  checkNumber('--max-list-pages', values['max-list-pages'], {
    min: 1,
    max: MAX_LIST_PAGES_LIMIT,
    integer: true,
    unit: 'pages',
  });
  checkNumber('--max-list-records', values['max-list-records'], {
    min: 1,
    max: MAX_LIST_RECORDS_LIMIT,
    integer: true,
    unit: 'records',
  });
  const protocols = values.protocols === undefined ? undefined : parseProtocols(values.protocols);
  if (protocols && 'error' in protocols) throw new UsageError(`Invalid --protocols: ${protocols.error}.`);
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
      requestTimeout: timeout,
      preflightOnly: values['preflight-only'] === true,
      maxRetries: values['max-retries'],
      retryBudget: values['retry-budget'],
      maxRps: values['max-rps'],
      maxListPages: values['max-list-pages'],
      maxListRecords: values['max-list-records'],
      ...(protocols ? { protocols: protocols.protocols } : {}),
      help: values.help === true,
    },
    passThrough,
    attestation: attestationValues(values),
  };
}

function checkNumber(
  option: string,
  value: string | undefined,
  bounds: { min: number; max: number; integer?: boolean; unit: string },
): void {
  if (value === undefined) return;
  const number = Number(value);
  const valid =
    value.trim() !== '' &&
    Number.isFinite(number) &&
    number >= bounds.min &&
    number <= bounds.max &&
    (!bounds.integer || Number.isInteger(number));
  if (!valid)
    throw new UsageError(
      `Invalid ${option} "${value}": give ${bounds.integer ? 'a whole number' : 'a number'} of ${bounds.unit} from ${bounds.min} to ${bounds.max}.`,
    );
}
