// The set-up the client report's end-to-end tests share: a reference server with an admin token,
// a folder for the reports, the admin API as the report reads it, and the `client-report` command
// run in process against them (its output captured, its JSON report read back).
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientReport } from '../../schemas/generated/client-report.ts';
import { clientReport } from '../../conformance/client-report/client-report.ts';
import { send, testServerPerSuite, type TestServer } from './reference-client.ts';
import { scratchDirectory } from './scratch.ts';

export const ADMIN_TOKEN = `test_${randomBytes(32).toString('base64url')}`;

export interface ReportRun {
  code: number;
  out: string;
  err: string;
  /** client-report.json, when the command wrote one (exit 0 or 1). */
  json?: ClientReport;
}

export interface ClientReportSuite {
  target: () => TestServer;
  /** The folder the reports are written to. */
  reportsDir: () => string;
  /** A request of the admin API, with the admin token. */
  admin: (method: string, path: string) => Promise<{ status: number; body: string }>;
  /** `client-report ARGV…` against the server's admin API, writing to reportsDir. */
  report: (...argv: string[]) => Promise<ReportRun>;
}

/**
 * The server and reports folder for the tests of the enclosing `describe`: made before them,
 * closed and removed after them.
 */
export function clientReportPerSuite(): ClientReportSuite {
  const target = testServerPerSuite({ adminToken: ADMIN_TOKEN });
  let folder: string | undefined;
  before(() => {
    folder = scratchDirectory('client-report-');
  });
  after(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  });
  const reportsDir = (): string => {
    if (!folder) throw new Error('The reports folder is read before its before hook ran.');
    return folder;
  };

  const admin = async (method: string, path: string): Promise<{ status: number; body: string }> =>
    send(target(), {
      host: `admin.localhost`,
      method,
      path: `/v1${path}`,
      headers: [['Authorization', `Bearer ${ADMIN_TOKEN}`]],
    });

  const report = async (...argv: string[]): Promise<ReportRun> => {
    let out = '';
    let err = '';
    const code = await clientReport(
      [
        '--admin-url',
        target().server.adminBaseUrl,
        '--ca',
        target().server.caPath,
        '--reports',
        reportsDir(),
        ...argv,
      ],
      {
        env: { REFERENCE_ADMIN_TOKEN: ADMIN_TOKEN },
        out: (text) => (out += text),
        err: (text) => (err += text),
      },
    );
    const file = join(reportsDir(), 'client-report.json');
    const json = code <= 1 ? (JSON.parse(readFileSync(file, 'utf8')) as ClientReport) : undefined;
    return { code, out, err, ...(json ? { json } : {}) };
  };

  return { target, reportsDir, admin, report };
}
