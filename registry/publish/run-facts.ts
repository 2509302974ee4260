// What the registry keeps of a verified report: the columns can-i-ship, diff and the pages query
// (verdict, profile, scope, signer…) and every rule's outcome overall and per protocol. The scope
// is read defensively: a report of an earlier kit may lack it, and a later one may add fields,
// which are kept whole in the `scope` and `options` columns.
import { claimWarnings } from '../../conformance/attestation/claim-warnings.ts';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { ALL_PROTOCOLS, type CheckedBy, type RuleOutcome, type RunFacts } from '../store/runs.ts';

export interface Provenance {
  deployment: string;
  version: string;
  signer: string;
  publisher: string;
  statementSha256: string;
  reportSha256: string;
  /** 'registry' only for the operator's `registry recheck` (receive.ts decides). */
  checkedBy: CheckedBy;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
const count = (value: unknown, otherwise: number): number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : otherwise;

export function runFacts(report: ConformanceReport, provenance: Provenance): RunFacts {
  const scope = (report.scope ?? {}) as Partial<Record<string, unknown>>;
  // Without a recorded scope: the protocols the report has verdicts for, else HTTP/1.1 (the only
  // one a kit without protocol support checked).
  const perProtocol = (report.protocols ?? [])
    .filter((protocol) => protocol.offered !== false)
    .map((p) => p.name);
  const checked = strings(scope.protocolsChecked);
  const protocolsChecked = checked.length > 0 ? checked : perProtocol.length > 0 ? perProtocol : ['HTTP/1.1'];
  const offered = strings(scope.protocolsOffered);
  return {
    deployment: provenance.deployment,
    version: provenance.version,
    targetName: report.target.name,
    baseUrl: report.target.baseUrl,
    profile: report.profile,
    verdict: report.verdict,
    protocolsChecked,
    protocolsOffered: offered.length > 0 ? offered : protocolsChecked,
    rulesSelected: count(scope.rulesSelected, report.options?.selectedRules ?? report.rules.length),
    rulesInCatalog: count(scope.rulesInCatalog, report.catalog?.rules ?? report.rules.length),
    partial: strings(scope.partial),
    scope: report.scope ?? null,
    options: report.options ?? null,
    kitVersion: report.suite.version,
    catalogSha256: report.catalog?.sha256 ?? null,
    statementSha256: provenance.statementSha256,
    reportSha256: provenance.reportSha256,
    signer: provenance.signer,
    publisher: provenance.publisher,
    startedAt: report.startedAt,
    // What verify would warn of, kept with the run so every answer that shows the run shows them.
    warnings: claimWarnings(report),
    otherTenant:
      [...(report.tls ?? []), ...(report.shards ?? []).flatMap((shard) => shard.tls ?? [])].find(
        (tls) => tls.field === 'otherTenantBaseUrl',
      )?.host ?? null,
    checkedBy: provenance.checkedBy,
  };
}

/** Each rule's verdict over all protocols, and over each one when the report has them. */
export function ruleOutcomes(report: ConformanceReport): RuleOutcome[] {
  return report.rules.flatMap((rule) => [
    { ruleId: rule.id, level: rule.level, protocol: ALL_PROTOCOLS, verdict: rule.verdict },
    ...Object.entries(rule.protocols ?? {}).map(([protocol, verdict]) => ({
      ruleId: rule.id,
      level: rule.level,
      protocol,
      verdict,
    })),
  ]);
}
