// The command-line options of the reference server: each flag has an environment variable and a
// default, and `--help` is generated from this one table.
import { parseArgs } from 'node:util';
import { DEFAULT_FIXTURES_FILE } from '../store/fixtures.ts';
import { DEFAULT_CERT_DIR } from '../listeners/certificates.ts';
import { DEFAULT_DATA_DIR } from '../store/data-dir.ts';
import { ADMIN_TOKEN_ENV } from '../admin-api/admin-token.ts';
import type { StepsOption } from './steps-option.ts';
import { DEFAULT_JOURNAL_CAPACITY, MAX_JOURNAL_ENTRIES } from '../journal/journal.ts';
import { MAX_PAGE_SIZE } from '../api/customer-pages.ts';

export interface CliOptions {
  host: string;
  httpsPort: number;
  httpPort: number | null;
  /** Whether the HTTPS port offers HTTP/2 beside HTTP/1.1. */
  http2: boolean;
  domain: string;
  fixturesFile: string;
  certDir: string;
  accessLog: 'stdout' | 'stderr' | 'off';
  /** null: keys are kept in memory only. */
  dataDir: string | null;
  /** From the environment only: a flag would show the token in the process list. */
  adminToken: string | undefined;
  /** Requests the client journal keeps per tenant; 0: no journal. */
  journalCapacity: number;
  /** Customers per page of GET /v1/customers; undefined: the whole list in one answer. */
  customersPageSize: number | undefined;
  /** The value of the composer's steps option (steps-option.ts, e.g. `--fault`), if given. */
  replaceSteps: string | undefined;
}

interface OptionSpec {
  flag: string;
  env: string;
  default: string;
  value: string;
  help: string;
}

const OPTIONS = {
  port: {
    flag: 'port',
    env: 'REFERENCE_PORT',
    default: '8443',
    value: 'PORT',
    help: 'HTTPS port of the API (0 picks a free port)',
  },
  'http-port': {
    flag: 'http-port',
    env: 'REFERENCE_HTTP_PORT',
    default: '8080',
    value: 'PORT|off',
    help: 'plain-HTTP port that rejects every request; "off" disables it',
  },
  http2: {
    flag: 'http2',
    env: 'REFERENCE_HTTP2',
    default: 'on',
    value: 'on|off',
    help: 'whether the HTTPS port offers HTTP/2 (ALPN h2) beside HTTP/1.1; "off" offers HTTP/1.1 alone',
  },
  host: {
    flag: 'host',
    env: 'REFERENCE_HOST',
    default: '127.0.0.1',
    value: 'ADDRESS',
    help: 'address to listen on',
  },
  domain: {
    flag: 'domain',
    env: 'REFERENCE_DOMAIN',
    default: 'localhost',
    value: 'DOMAIN',
    help: 'the {domain} of https://{tenant}.api.{domain}/v1',
  },
  fixtures: {
    flag: 'fixtures',
    env: 'REFERENCE_FIXTURES',
    default: DEFAULT_FIXTURES_FILE,
    value: 'FILE',
    help: 'tenants, keys and customers to serve (JSON, see schemas/fixtures.schema.json)',
  },
  'cert-dir': {
    flag: 'cert-dir',
    env: 'REFERENCE_CERT_DIR',
    default: DEFAULT_CERT_DIR,
    value: 'DIR',
    help: 'where the local CA and the server certificate are kept and reused',
  },
  'data-dir': {
    flag: 'data-dir',
    env: 'REFERENCE_DATA_DIR',
    default: DEFAULT_DATA_DIR,
    value: 'DIR|off',
    help: 'where keys made in the panel or admin API outlive a restart; "off" keeps them in memory',
  },
  'access-log': {
    flag: 'access-log',
    env: 'REFERENCE_ACCESS_LOG',
    default: 'stdout',
    value: 'stdout|stderr|off',
    help: 'where the JSON access log goes',
  },
  'journal-size': {
    flag: 'journal-size',
    env: 'REFERENCE_JOURNAL_SIZE',
    default: String(DEFAULT_JOURNAL_CAPACITY),
    value: 'N|off',
    help: 'requests kept per tenant in the client journal (npm run client-report); "off" disables it',
  },
  'page-size': {
    flag: 'page-size',
    env: 'REFERENCE_PAGE_SIZE',
    default: 'off',
    value: 'N|off',
    help: 'customers per page of GET /v1/customers (a Link rel="next" with a cursor names the next); "off": the whole list',
  },
} as const satisfies Record<string, OptionSpec>;

export class UsageError extends Error {
  constructor(message: string) {
    super(`${message}\nRun with --help for the list of options.`);
    this.name = 'UsageError';
  }
}

/** Column of the help texts: wide enough that the longest flag still has a gap after it. */
const HELP_COLUMN = 36;

export function helpText(stepsOption?: StepsOption): string {
  const lines = Object.values(OPTIONS).map((option: OptionSpec) => {
    const flag = `  --${option.flag} ${option.value}`.padEnd(HELP_COLUMN);
    return `${flag}${option.help}\n${' '.repeat(HELP_COLUMN)}env ${option.env}, default ${option.default}`;
  });
  return [
    'Usage: tenant-auth-conformance serve [options]   (in a clone of the repository: npm start -- [options])',
    '',
    'Starts the reference server of the multi-tenant business API: https://{tenant}.api.{domain}/v1',
    'for every tenant of the fixtures file, and https://sandbox-{tenant}.api.{domain}/v1 for its sandbox.',
    'A flag wins over its environment variable.',
    '',
    'Options:',
    ...lines,
    ...(stepsOption?.help(HELP_COLUMN) ?? []),
    `${'  --help'.padEnd(HELP_COLUMN)}print this help`,
    '',
    `${ADMIN_TOKEN_ENV}: the admin API's bearer token (default: admin-token in the data directory).`,
  ].join('\n');
}

export type ParsedCommand = { help: true } | { help: false; options: CliOptions };

export function parseCli(argv: string[], env: NodeJS.ProcessEnv, stepsOption?: StepsOption): ParsedCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    const optionConfig = Object.fromEntries(
      Object.keys(OPTIONS).map((name) => [name, { type: 'string' as const }]),
    );
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...optionConfig,
        ...(stepsOption ? { [stepsOption.flag]: { type: 'string' as const } } : {}),
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { help: true };

  const read = (name: keyof typeof OPTIONS): string => {
    const option: OptionSpec = OPTIONS[name];
    const value = values[name] ?? env[option.env] ?? option.default;
    return typeof value === 'string' ? value : option.default;
  };
  const httpPortText = read('http-port');
  const accessLog = read('access-log');
  if (accessLog !== 'stdout' && accessLog !== 'stderr' && accessLog !== 'off') {
    throw new UsageError(`Invalid --access-log "${accessLog}": use stdout, stderr or off.`);
  }
  const http2 = read('http2');
  if (http2 !== 'on' && http2 !== 'off') {
    throw new UsageError(`Invalid --http2 "${http2}": use on or off.`);
  }
  const dataDir = read('data-dir');
  const replaceSteps = stepsOption ? values[stepsOption.flag] : undefined;
  const problem =
    typeof replaceSteps === 'string' && replaceSteps !== 'list'
      ? stepsOption?.problem(replaceSteps)
      : undefined;
  if (problem !== undefined) throw new UsageError(problem);
  const domain = read('domain').toLowerCase();
  if (!/^[a-z0-9]+(?:[.-][a-z0-9]+)*$/.test(domain)) {
    throw new UsageError(`Invalid --domain "${domain}": give a host name such as localhost or example.test.`);
  }
  return {
    help: false,
    options: {
      host: read('host'),
      httpsPort: port('--port', read('port')),
      httpPort: httpPortText === 'off' ? null : port('--http-port', httpPortText),
      http2: http2 === 'on',
      domain,
      fixturesFile: read('fixtures'),
      certDir: read('cert-dir'),
      accessLog,
      dataDir: dataDir === 'off' ? null : dataDir,
      adminToken: env[ADMIN_TOKEN_ENV],
      journalCapacity: journalSize(read('journal-size')),
      customersPageSize: pageSize(read('page-size')),
      replaceSteps: typeof replaceSteps === 'string' ? replaceSteps : undefined,
    },
  };
}

function journalSize(text: string): number {
  if (text === 'off') return 0;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_JOURNAL_ENTRIES) {
    throw new UsageError(
      `Invalid --journal-size "${text}": give a number of requests from 1 to ${MAX_JOURNAL_ENTRIES}, or off.`,
    );
  }
  return value;
}

function pageSize(text: string): number | undefined {
  if (text === 'off') return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_PAGE_SIZE) {
    throw new UsageError(
      `Invalid --page-size "${text}": give a number of customers from 1 to ${MAX_PAGE_SIZE}, or off.`,
    );
  }
  return value;
}

function port(flag: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 65535)
    throw new UsageError(`Invalid ${flag} "${text}": give a port number from 0 to 65535.`);
  return value;
}
