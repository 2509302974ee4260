// `npm run client-report`: reads the reference server's client journal through its admin API,
// judges each client (judge.ts) and writes the report (render.ts). `clientReport(argv)` is the
// whole command, so that another command line can run it as a subcommand.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiKeyMetadata } from '../../schemas/generated/api-key-management.ts';
import type { ClientReport } from '../../schemas/generated/client-report.ts';
import type { Journal } from '../../schemas/generated/journal.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import { RawClient } from '../requests/raw-client.ts';
import { judgeClients } from './judge.ts';
import { HELP, parseReportOptions, SetupError, UsageError, type ReportOptions } from './options.ts';
import { renderConsole, renderJunit, renderMarkdown } from './render.ts';

import { EXIT_CODE } from '../report/verdict.ts';
import { kitPackage } from '../../kit/package-root.ts';
import { inputEnvironment } from '../env.ts';

/** The exit codes of every command (conformance/report/verdict.ts): 0 here is CLIENT CONFORMANT. */
export const EXIT = { ...EXIT_CODE, conformant: EXIT_CODE.ok } as const;

export interface ReportIo {
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
  now?: () => Date;
}

const DEFAULT_IO: ReportIo = {
  env: inputEnvironment(),
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** Names in the admin API's host map: Node does not resolve `*.localhost` by itself. */
const LOCAL_HOSTS = { localhost: '127.0.0.1', '*.localhost': '127.0.0.1' };

/** The admin API could not be reached or read: the message says which and what to do. */
export class ClientReportError extends Error {}

export async function clientReport(argv: readonly string[], io: ReportIo = DEFAULT_IO): Promise<number> {
  const now = io.now?.() ?? new Date();
  let options: ReportOptions | undefined;
  try {
    options = parseReportOptions(argv, io.env, now);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`client-report: ${error.message}`);
      return EXIT.usage;
    }
    if (error instanceof SetupError) {
      io.err(`client-report: ${error.message}`);
      return EXIT.setup;
    }
    throw error;
  }
  if (!options) {
    io.out(HELP);
    return EXIT.conformant;
  }
  let report: ClientReport;
  try {
    report = await buildClientReport(options, now);
  } catch (error) {
    if (!(error instanceof ClientReportError)) throw error;
    io.err(`client-report: ${error.message}`);
    return EXIT.setup;
  }
  if (report.journal.entries === 0) {
    io.err(
      'client-report: the journal holds no request in this window. Run your client against the reference server first (or widen --since/--tenant/--key-id).',
    );
    return EXIT.setup;
  }
  mkdirSync(options.reportsDir, { recursive: true });
  const files = {
    json: join(options.reportsDir, 'client-report.json'),
    markdown: join(options.reportsDir, 'client-report.md'),
    junit: join(options.reportsDir, 'client-junit.xml'),
  };
  writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(files.markdown, renderMarkdown(report));
  writeFileSync(files.junit, renderJunit(report));
  io.out(renderConsole(report, Object.values(files)));
  return report.verdict === 'CLIENT CONFORMANT' ? EXIT.conformant : EXIT.notConformant;
}

/** Where the journal is read: a reference server's admin API, its token and CA. */
export type JournalSource = Pick<ReportOptions, 'adminUrl' | 'adminToken' | 'caFile' | 'filter'> & {
  /** Host names to resolve by hand; default `localhost` and `*.localhost` to loopback. */
  hosts?: Readonly<Record<string, string>>;
};

/**
 * The client report of the journal window `options.filter` of the reference server at
 * `options.adminUrl`: what `client-report` writes, as data. Throws ClientReportError when the
 * admin API cannot be reached or read.
 */
export async function buildClientReport(options: JournalSource, now: Date): Promise<ClientReport> {
  const client = new RawClient({
    hosts: options.hosts ?? LOCAL_HOSTS,
    ...(options.caFile ? { caFile: options.caFile } : {}),
  });
  const get = async (path: string): Promise<unknown> => {
    const exchange = await client.send({
      url: `${options.adminUrl}${path}`,
      headers: [
        ['Authorization', `Bearer ${options.adminToken}`],
        ['Accept', 'application/json'],
      ],
    });
    if (exchange.kind === 'failure') {
      throw new ClientReportError(
        `could not reach the admin API at ${options.adminUrl} (${exchange.error}). Start the reference server (npm start) or pass --admin-url.`,
      );
    }
    if (exchange.status === 404 && path.includes('/keys/')) return undefined;
    if (exchange.status !== 200) {
      throw new ClientReportError(
        `the admin API answered ${exchange.status} to GET ${path}: ${errorMessage(exchange.bodyText)}`,
      );
    }
    try {
      return JSON.parse(exchange.bodyText) as unknown;
    } catch {
      throw new ClientReportError(`the admin API answered GET ${path} with a body that is not JSON.`);
    }
  };
  const query = new URLSearchParams();
  const { tenant, keyId, since, until } = options.filter;
  if (tenant !== undefined) query.set('tenant', tenant);
  if (keyId !== undefined) query.set('key_id', keyId);
  if (since !== undefined) query.set('since', since);
  if (until !== undefined) query.set('until', until);
  const journal = await get(`/journal${query.size > 0 ? `?${query}` : ''}`);
  // Compiled here, not when the module loads: `client-report --help` or a bad option reads no journal.
  const validateJournal = validatorFor<Journal>('journal.schema.json');
  if (!validateJournal(journal)) {
    throw new ClientReportError(
      `the admin API's journal does not match schemas/journal.schema.json: ${describeSchemaErrors(validateJournal.errors).slice(0, 3).join('; ')}. Is this a reference server of the same version?`,
    );
  }
  const keys = new Map<string, ApiKeyMetadata>();
  const named = new Set(
    journal.data.flatMap((entry) =>
      entry.key?.startsWith('key_') && entry.tenant ? [`${entry.tenant}/${entry.key}`] : [],
    ),
  );
  for (const tenantAndKey of named) {
    const metadata = (await get(`/tenants/${tenantAndKey.replace('/', '/keys/')}`)) as
      ApiKeyMetadata | undefined;
    if (metadata) keys.set(metadata.id, metadata);
  }
  return judgeClients({
    journal,
    keys,
    server: options.adminUrl,
    window: options.filter,
    suite: kitPackage(),
    generatedAt: now,
  });
}

function errorMessage(body: string): string {
  try {
    return (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? 'no error message';
  } catch {
    return 'no error message';
  }
}
