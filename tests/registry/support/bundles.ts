// Signed bundles for the registry's tests, made in process by the code a run uses (buildReport,
// writeReports, writeBundle) from made-up outcomes: a run of the suite costs seconds of CPU each,
// and these tests need many bundles that differ in one thing (a failing rule, the profile, the
// protocols, the signer). tests/conformance/attestation/certify.test.ts proves the same code on
// real runs.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import { scopeOf } from '../../../conformance/report/scope.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { REPORT_FILES, writeReports } from '../../../conformance/report/write-reports.ts';
import { writeBundle } from '../../../conformance/attestation/bundle.ts';
import { publicKeyPem } from '../../../conformance/attestation/signing-key.ts';
import { tlsEvidence } from '../../support/tls-evidence.ts';
import { scratchDirectory } from '../../support/scratch.ts';

export interface BundleShape {
  /** Rules that fail (a MUST rule fails the run; an HTTP rule only under strict). */
  failing?: readonly string[];
  /** Rules that fail over one protocol only (and so overall), by protocol name. */
  failingOver?: Readonly<Record<string, readonly string[]>>;
  profile?: 'default' | 'strict';
  /** The protocols checked (default both) and offered (default both). */
  checked?: readonly string[];
  offered?: readonly string[];
  /** Fewer than the catalog's rules selected: a partial run. */
  rulesSelected?: number;
  targetName?: string;
  /** The target's base URL (default https://api.acme.example/v1), its host map and CA file. */
  baseUrl?: string;
  hosts?: Readonly<Record<string, string>>;
  caFile?: string;
  /** The other tenant's host (its certificate recorded as otherTenantBaseUrl's), e.g. globex.acme.example:443. */
  otherTenant?: string;
  startedAt?: Date;
  /** The HAR made this many bytes larger (a comment of its log): a large bundle, still verified. */
  harPadding?: number;
  /** undefined: unsigned. */
  key?: KeyObject;
}

/** Every bundle of this process is made under one directory, removed by removeBundles(). */
let root: string | undefined;

/** Removes every bundle this process made (an `after` hook of the file that made them). */
export function removeBundles(): void {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
}

export const MUST_RULES = RULES.filter((rule) => rule.level === 'MUST').map((rule) => rule.id);
export const HTTP_RULES = RULES.filter((rule) => rule.level === 'HTTP').map((rule) => rule.id);

export function keyPair(): { privateKey: KeyObject; publicKey: KeyObject; publicPem: string } {
  const pair = generateKeyPairSync('ed25519');
  return { ...pair, publicPem: publicKeyPem(pair.publicKey) };
}

/** A bundle directory of a run of the given shape. */
export function makeBundle(shape: BundleShape = {}): string {
  const outcomesFailing = (ids: Iterable<string>): Map<string, TestOutcome[]> => {
    const failing = new Set(ids);
    return new Map<string, TestOutcome[]>(
      RULES.map((rule) => [
        rule.id,
        [
          failing.has(rule.id)
            ? { status: 'failed', failure: { message: 'served', evidence: [] } }
            : { status: 'passed' },
        ],
      ]),
    );
  };
  const over = shape.failingOver ?? {};
  const failing = [...(shape.failing ?? []), ...Object.values(over).flat()];
  const outcomes = outcomesFailing(failing);
  const checked = shape.checked ?? ['HTTP/1.1', 'HTTP/2'];
  // The base URL's certificate is recorded at the base URL's host, as a run records it (verify checks).
  const baseHost = shape.baseUrl === undefined ? undefined : new URL(shape.baseUrl);
  const certificate = tlsEvidence(
    [...(shape.offered ?? ['HTTP/1.1', 'HTTP/2'])],
    baseHost && `${baseHost.hostname}:${baseHost.port || '443'}`,
  );
  const certificates = [
    certificate,
    ...(shape.otherTenant
      ? [
          {
            ...tlsEvidence([...(shape.offered ?? ['HTTP/1.1', 'HTTP/2'])], shape.otherTenant),
            field: 'otherTenantBaseUrl' as const,
          },
        ]
      : []),
  ];
  const rulesSelected = shape.rulesSelected ?? RULES.length;
  const report = buildReport(outcomes, {
    target: {
      name: shape.targetName ?? 'acme staging',
      mode: 'file',
      baseUrl: shape.baseUrl ?? 'https://api.acme.example/v1',
      ...(shape.hosts ? { hosts: { ...shape.hosts } } : {}),
      ...(shape.caFile ? { caFile: shape.caFile } : {}),
    },
    profile: shape.profile ?? 'strict',
    startedAt: shape.startedAt ?? new Date('2026-11-25T10:00:00Z'),
    durationMs: 61_000,
    options: {
      failOnIncomplete: false,
      requestTimeoutSeconds: 10,
      selectedRules: rulesSelected,
      maxListPages: 10,
    },
    tls: certificates,
    ...(checked.length > 1
      ? {
          byProtocol: new Map(
            checked.map((protocol) => [
              protocol,
              outcomesFailing([...(shape.failing ?? []), ...(over[protocol] ?? [])]),
            ]),
          ),
        }
      : {}),
    runProtocols: checked,
    scope: scopeOf({
      protocolsChecked: checked,
      tls: certificates,
      rulesSelected,
      rulesInCatalog: RULES.length,
    }),
  });
  root ??= scratchDirectory('registry-bundles-');
  const reports = mkdtempSync(join(root, 'run-'));
  writeReports(report, { exchanges: [] }, reports);
  if (shape.harPadding !== undefined) {
    const har = join(reports, REPORT_FILES.har);
    const parsed = JSON.parse(readFileSync(har, 'utf8')) as { log: Record<string, unknown> };
    writeFileSync(har, JSON.stringify({ log: { ...parsed.log, comment: 'a'.repeat(shape.harPadding) } }));
  }
  return writeBundle(report, reports, shape.key).directory;
}
