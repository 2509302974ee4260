// The in-toto Statement (v1) of a run: its subjects are the bundle's reports and badge with their
// SHA-256 digests, its predicate the verdict and everything that pins what was tested (the kit,
// the catalog, the spec, the profile and options, the target and its certificates). Tools that
// read in-toto attestations (policy engines, attestation stores) read it as any other statement.
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/**
 * Ours, on a reserved name (RFC 2606 `.invalid`) until the kit has a published home: it must not
 * pretend to be a predicate type somebody else defines. docs/decisions/0019 says why.
 */
export const PREDICATE_TYPE = 'https://conformance.invalid/tenant-auth-conformance/verdict/v1';

export interface Subject {
  name: string;
  digest: { sha256: string };
}

export type VerdictPredicate = Pick<
  ConformanceReport,
  | 'verdict'
  | 'summary'
  | 'suite'
  | 'spec'
  | 'catalog'
  | 'target'
  | 'profile'
  | 'options'
  | 'tls'
  | 'shard'
  | 'startedAt'
  | 'durationMs'
>;

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: Subject[];
  predicateType: typeof PREDICATE_TYPE;
  predicate: VerdictPredicate;
}

/** The predicate of a report: the same fields, so that verify can recompute it from conformance.json. */
export function predicateOf(report: ConformanceReport): VerdictPredicate {
  return {
    verdict: report.verdict,
    summary: report.summary,
    suite: report.suite,
    spec: report.spec,
    ...(report.catalog ? { catalog: report.catalog } : {}),
    target: report.target,
    profile: report.profile,
    ...(report.options ? { options: report.options } : {}),
    ...(report.tls ? { tls: report.tls } : {}),
    ...(report.shard ? { shard: report.shard } : {}),
    startedAt: report.startedAt,
    durationMs: report.durationMs,
  };
}

export function buildStatement(report: ConformanceReport, subjects: readonly Subject[]): Statement {
  return {
    _type: STATEMENT_TYPE,
    subject: [...subjects],
    predicateType: PREDICATE_TYPE,
    predicate: predicateOf(report),
  };
}

/** The bytes written to statement.json and signed: the envelope's payload is exactly these. */
export function statementBytes(statement: Statement): Buffer {
  return Buffer.from(`${JSON.stringify(statement, null, 2)}\n`, 'utf8');
}
