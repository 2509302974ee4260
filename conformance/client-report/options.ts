// The options of `tenant-auth-conformance client-report`, checked before anything is sent: a bad
// value is a usage error (exit 2) that names the option and what it accepts.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN_TOKEN_ENV, ADMIN_TOKEN_FILE } from '../../reference-server/admin-api/admin-token.ts';
import { DEFAULT_DATA_DIR } from '../../reference-server/store/data-dir.ts';
import { DEFAULT_CERT_DIR } from '../../reference-server/listeners/certificates.ts';

export const ADMIN_URL_ENV = 'REFERENCE_ADMIN_URL';
export const DEFAULT_ADMIN_URL = 'https://admin.localhost:8443/v1';

export const HELP = `Usage: tenant-auth-conformance client-report [options]   (in a clone of the repository: npm run client-report -- [options])

Judges the clients that called the reference server: reads its client journal through the admin
API, groups the requests by client (key id, User-Agent and protocol), checks each client against
the client rules (docs/client-rules.md) and writes the report.

Options:
  --admin-url URL   the reference server's admin API (default ${DEFAULT_ADMIN_URL});
                    env ${ADMIN_URL_ENV}
  --data-dir DIR    where the server keeps its admin token (default .reference-data/);
                    the token in env ${ADMIN_TOKEN_ENV} is used first
  --ca FILE         the CA certificate of the server (default .certs/ca.crt)
  --tenant ID       only this tenant's requests
  --key-id ID       only this key's requests
  --since TIME      only requests since TIME: an RFC 3339 date-time, or a duration ago (30s, 15m, 2h, 1d)
  --until TIME      only requests until TIME (RFC 3339)
  --reports DIR     where the reports are written (default reports/client/)
  --help            print this help

Reports: DIR/client-report.json (schemas/client-report.schema.json), client-report.md and
client-junit.xml. None holds a key: the journal names keys by id, or as "unknown key" with a
fingerprint.
Exit code: 0 CLIENT CONFORMANT; 1 CLIENT NOT CONFORMANT (a client broke a MUST rule); 2 usage
error; 3 the admin API could not be reached or read (or the window holds no request).`;

export interface ReportOptions {
  adminUrl: string;
  adminToken: string;
  caFile: string | undefined;
  filter: { tenant?: string; keyId?: string; since?: string; until?: string };
  reportsDir: string;
}

export class UsageError extends Error {}
/** Something outside the command line is missing (no admin token found). */
export class SetupError extends Error {}

const DURATION = /^(\d{1,6})(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** @returns undefined for --help. */
export function parseReportOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  now: Date,
): ReportOptions | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'admin-url': { type: 'string' },
        'data-dir': { type: 'string' },
        ca: { type: 'string' },
        tenant: { type: 'string' },
        'key-id': { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        reports: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. Run with --help for the options.`);
  }
  if (values.help === true) return undefined;
  const adminUrl = values['admin-url'] ?? env[ADMIN_URL_ENV] ?? DEFAULT_ADMIN_URL;
  if (!/^https:\/\/[^/?#]+(\/[^?#]*)?$/.test(adminUrl)) {
    throw new UsageError('--admin-url must be an https:// URL such as https://admin.localhost:8443/v1.');
  }
  const filter: ReportOptions['filter'] = {};
  if (values.tenant !== undefined) {
    if (!/^[a-z0-9-]{1,63}$/.test(values.tenant))
      throw new UsageError('--tenant must be a tenant id (lowercase letters, digits, hyphens).');
    filter.tenant = values.tenant;
  }
  if (values['key-id'] !== undefined) {
    if (!/^key_[a-z0-9_]{1,60}$/.test(values['key-id']))
      throw new UsageError('--key-id must be a key id (key_…), never a key.');
    filter.keyId = values['key-id'];
  }
  if (values.since !== undefined) filter.since = timeOption('--since', values.since, now, true);
  if (values.until !== undefined) filter.until = timeOption('--until', values.until, now, false);
  const caFile = values.ca ?? join(DEFAULT_CERT_DIR, 'ca.crt');
  if (values.ca !== undefined && !existsSync(caFile)) throw new UsageError(`--ca: no file ${caFile}.`);
  return {
    adminUrl: adminUrl.replace(/\/$/, ''),
    adminToken: adminToken(env, values['data-dir'] ?? DEFAULT_DATA_DIR),
    caFile: existsSync(caFile) ? caFile : undefined,
    filter,
    reportsDir: resolve(values.reports ?? 'reports/client'),
  };
}

function timeOption(flag: string, value: string, now: Date, durationAllowed: boolean): string {
  const duration = durationAllowed ? DURATION.exec(value) : null;
  if (duration)
    return new Date(
      now.getTime() - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS],
    ).toISOString();
  const time = DATE_TIME.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) {
    throw new UsageError(
      `${flag} must be an RFC 3339 date-time such as 2025-01-31T09:30:00Z${durationAllowed ? ', or a duration such as 15m' : ''}.`,
    );
  }
  return new Date(time).toISOString();
}

function adminToken(env: NodeJS.ProcessEnv, dataDir: string): string {
  const fromEnv = env[ADMIN_TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const file = join(resolve(dataDir), ADMIN_TOKEN_FILE);
  if (!existsSync(file)) {
    throw new SetupError(
      `No admin token: set ${ADMIN_TOKEN_ENV}, or pass --data-dir with the server's data directory (no ${file}).`,
    );
  }
  return readFileSync(file, 'utf8').trim();
}
