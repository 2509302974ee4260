// The in-toto Statement (v1) of a run: its subjects are the bundle's reports and badge with their
// SHA-256 digests, its predicate the verdict and everything that pins what was tested (the kit,
// the catalog, the spec, the profile and options, the target and its certificates). Tools that
// read in-toto attestations (policy engines, attestation stores) read it as any other statement.
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/**
 * Ours: a URN in the kit's own name, which points at no host the project does not own, and is
 * documented by schemas/verdict-statement.schema.json (the whole statement) and README
 * "Certify an implementation". v2 adds the scope (protocols checked and offered, selection) and a
 * merged run's shards to v1 (which was on a reserved `.invalid` name). docs/decisions/0024.
 */
export const PREDICATE_TYPE = 'urn:tenant-auth-conformance:verdict:v2';

/** The JSON Schema a statement is validated against (schemas/). */
export const STATEMENT_SCHEMA = 'verdict-statement.schema.json';

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
  | 'scope'
  | 'shards'
  | 'protocols'
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
    // What the run could reach, and what no black-box run proves (report/reach.ts).
    ...(report.reach ? { reach: report.reach } : {}),
    ...(report.shard ? { shard: report.shard } : {}),
    ...(report.scope ? { scope: report.scope } : {}),
    ...(report.shards ? { shards: report.shards } : {}),
    ...(report.protocols ? { protocols: report.protocols } : {}),
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
