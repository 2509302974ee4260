// A forger's tools, for the tests of what a certificate withstands (tests/conformance/attestation/):
// a report as a run makes it, its bundle signed by the vendor, and what a forger with the kit's
// own code does after changing files — render the reports again, recompute every digest, rewrite
// SHA256SUMS, sign again with any key. Reports are built in process by the code a run uses.
import { type TestContext } from 'node:test';
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport, TlsEvidence } from '../../schemas/generated/conformance-report.ts';
import { RULES } from '../../conformance/catalog/rules.ts';
import { buildReport } from '../../conformance/report/build-report.ts';
import type { TestOutcome } from '../../conformance/report/verdict.ts';
import { writeReports, REPORT_FILES } from '../../conformance/report/write-reports.ts';
import { scopeOf } from '../../conformance/report/scope.ts';
import { writeBundle } from '../../conformance/attestation/bundle.ts';
import { signEnvelope } from '../../conformance/attestation/dsse.ts';
import { renderManifest } from '../../conformance/attestation/manifest.ts';
import { publicKeyPem } from '../../conformance/attestation/signing-key.ts';
import type { Statement } from '../../conformance/attestation/statement.ts';
import { main as verifyCommand } from '../../cli/commands/verify.ts';
import { tlsEvidence as tls } from './tls-evidence.ts';
import { scratchDirectory } from './scratch.ts';

export const vendor = generateKeyPairSync('ed25519');
export const forger = generateKeyPairSync('ed25519');
export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

export interface ReportShape {
  /** Rules that fail (MUST rules fail the run). */
  failing?: string[];
  checked?: string[];
  offered?: string[];
  profile?: 'default' | 'strict';
  target?: ConformanceReport['target'];
  certificate?: TlsEvidence;
}

/** A report as a run makes it: every rule passed but `failing`, over `checked` of `offered`. */
export function report(shape: ReportShape = {}): ConformanceReport {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  for (const id of shape.failing ?? [])
    outcomes.set(id, [{ status: 'failed', failure: { message: 'served', evidence: [] } }]);
  const certificate = shape.certificate ?? tls(shape.offered ?? ['HTTP/1.1', 'HTTP/2']);
  return buildReport(outcomes, {
    target: shape.target ?? { name: 'acme staging', mode: 'file', baseUrl: 'https://api.acme.example/v1' },
    profile: shape.profile ?? 'default',
    startedAt: new Date('2026-11-25T10:00:00Z'),
    durationMs: 61_000,
    options: { failOnIncomplete: false, requestTimeoutSeconds: 10, selectedRules: RULES.length },
    tls: [certificate],
    scope: scopeOf({
      protocolsChecked: shape.checked ?? ['HTTP/1.1', 'HTTP/2'],
      tls: [certificate],
      rulesSelected: RULES.length,
      rulesInCatalog: RULES.length,
    }),
  });
}

export function bundleOf(built: ConformanceReport, key: KeyObject | undefined = vendor.privateKey): string {
  const reports = scratchDirectory('forgery-test-');
  writeReports(built, { exchanges: [] }, reports);
  return writeBundle(built, reports, key).directory;
}

export const mustRules = RULES.filter((rule) => rule.level === 'MUST').map((rule) => rule.id);
export const read = (directory: string, name: string): string => readFileSync(join(directory, name), 'utf8');
export const statementOf = (directory: string): Statement =>
  JSON.parse(read(directory, 'statement.json')) as Statement;

/**
 * What a forger with the kit's own tools does after changing files: recompute every subject's
 * digest (or keep `subjects` as given), rewrite SHA256SUMS, and sign again with `key` (or leave
 * the bundle unsigned).
 */
export function reseal(
  directory: string,
  key: KeyObject | undefined,
  statement: Statement = statementOf(directory),
): void {
  const subjects = statement.subject.map((subject) => ({
    ...subject,
    digest: { sha256: sha256(readFileSync(join(directory, subject.name))) },
  }));
  const bytes = Buffer.from(`${JSON.stringify({ ...statement, subject: subjects }, null, 2)}\n`);
  writeStatement(directory, bytes, key);
}

export function writeStatement(directory: string, bytes: Buffer, key: KeyObject | undefined): void {
  writeFileSync(join(directory, 'statement.json'), bytes);
  rmSync(join(directory, 'statement.dsse.json'), { force: true });
  rmSync(join(directory, 'signer.pub.pem'), { force: true });
  if (key) {
    writeFileSync(join(directory, 'signer.pub.pem'), publicKeyPem(key));
    writeFileSync(join(directory, 'statement.dsse.json'), JSON.stringify(signEnvelope(bytes, key), null, 2));
  }
  const names = [
    ...REPORT_FILES_LIST,
    'badge.svg',
    'statement.json',
    ...(key ? ['signer.pub.pem', 'statement.dsse.json'] : []),
  ];
  writeFileSync(
    join(directory, 'SHA256SUMS'),
    renderManifest(new Map(names.map((name) => [name, sha256(readFileSync(join(directory, name)))]))),
  );
}

export const REPORT_FILES_LIST = Object.values(REPORT_FILES);

/** What a forger with the kit's own renderers does: every report of the bundle rendered from `forged`. */
export function rerender(directory: string, forged: ConformanceReport): void {
  writeReports(forged, { exchanges: [] }, directory);
}

/** `verify DIR ARGS…` in process: its exit code and what it printed. */
export async function verifyCli(
  t: TestContext,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  t.mock.method(console, 'log', (text: string) => out.push(text));
  t.mock.method(console, 'error', (text: string) => err.push(text));
  const code = await verifyCommand(args);
  t.mock.restoreAll();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

export function publicKeyFile(key: KeyObject): string {
  const file = join(scratchDirectory('forgery-key-'), 'signer.pub');
  writeFileSync(file, publicKeyPem(key));
  return file;
}
