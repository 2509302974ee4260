// What a run covered, and whether that is all there was to cover: the protocols it checked every
// rule over against the protocols the target's hosts agree to by ALPN, and the rules it selected
// (--grep, --shard) against the catalog. A run that left an offered protocol or some rules out is
// partial: its verdict line, every report, the badge and `verify` say so ("CONFORMANT · HTTP/1.1
// only"), and under --profile strict it is never CONFORMANT (verdict.ts, runVerdict).
import type { ConformanceReport, TlsEvidence } from '../../schemas/generated/conformance-report.ts';
import { isHeldBackByScope } from './verdict.ts';

export type Scope = NonNullable<ConformanceReport['scope']>;

export interface ScopeInputs {
  /** The protocols every selected rule was checked over, as reports name them (HTTP/1.1, HTTP/2). */
  protocolsChecked: readonly string[];
  /** The certificates and protocols of the declared hosts (the preflight's). */
  tls?: readonly TlsEvidence[];
  rulesSelected: number;
  rulesInCatalog: number;
  grep?: string;
  grepInvert?: string;
  /** The shards the report covers. */
  shards?: readonly string[];
}

const HTTP1 = 'HTTP/1.1';

export function scopeOf(inputs: ScopeInputs): Scope {
  const offered = protocolsOffered(inputs.tls ?? []);
  const missing = offered.filter((protocol) => !inputs.protocolsChecked.includes(protocol));
  const hostsOffering = (protocol: string): string =>
    [
      ...new Set(
        (inputs.tls ?? []).filter((tls) => tls.protocols?.includes(protocol)).map((tls) => tls.host),
      ),
    ].join(', ');
  const partial = [
    ...missing.map(
      (protocol) =>
        `${protocol} was not checked, but the target offers it (${hostsOffering(protocol)}): the rules hold over ${inputs.protocolsChecked.join(' and ')} only.`,
    ),
    ...(inputs.rulesSelected < inputs.rulesInCatalog
      ? [
          `${inputs.rulesSelected} of the catalog's ${inputs.rulesInCatalog} rules were selected${selectionText(inputs)}; the others are not evaluated.`,
        ]
      : []),
  ];
  return {
    protocolsChecked: [...inputs.protocolsChecked],
    protocolsOffered: offered,
    rulesSelected: inputs.rulesSelected,
    rulesInCatalog: inputs.rulesInCatalog,
    ...(inputs.grep !== undefined ? { grep: inputs.grep } : {}),
    ...(inputs.grepInvert !== undefined ? { grepInvert: inputs.grepInvert } : {}),
    ...(inputs.shards?.length ? { shards: [...inputs.shards] } : {}),
    partial,
  };
}

/**
 * Every protocol some host agrees to by ALPN. A host whose offer is unknown (no handshake, a plain-HTTP
 * target) speaks HTTP/1.1; an h2-only port does not, so a run over HTTP/2 alone there is complete.
 */
function protocolsOffered(tls: readonly TlsEvidence[]): string[] {
  const all = new Set<string>();
  for (const host of tls) for (const protocol of host.protocols ?? [HTTP1]) all.add(protocol);
  if (all.size === 0) all.add(HTTP1);
  return [...all].sort((a, b) => (a === HTTP1 ? -1 : b === HTTP1 ? 1 : a.localeCompare(b)));
}

function selectionText(inputs: ScopeInputs): string {
  const how = [
    ...(inputs.grep !== undefined ? [`--grep ${inputs.grep}`] : []),
    ...(inputs.grepInvert !== undefined ? [`--grep-invert ${inputs.grepInvert}`] : []),
    ...(inputs.shards?.length ? [`shard ${inputs.shards.join(', ')}`] : []),
  ];
  return how.length > 0 ? ` (${how.join('; ')})` : '';
}

export function isPartial(report: Pick<ConformanceReport, 'scope'>): boolean {
  return (report.scope?.partial.length ?? 0) > 0;
}

/**
 * The few words the verdict carries where it is shown short (the badge, the verdict line, verify's
 * headline): "HTTP/1.1 only", "12 of 44 rules", or both; undefined for a complete run.
 */
export function scopeLabel(report: Pick<ConformanceReport, 'scope'>): string | undefined {
  const scope = report.scope;
  if (!scope || scope.partial.length === 0) return undefined;
  const labels = [
    ...(scope.protocolsOffered.some((protocol) => !scope.protocolsChecked.includes(protocol))
      ? [`${scope.protocolsChecked.join(' + ')} only`]
      : []),
    ...(scope.rulesSelected < scope.rulesInCatalog
      ? [`${scope.rulesSelected} of ${scope.rulesInCatalog} rules`]
      : []),
  ];
  return labels.length > 0 ? labels.join(', ') : 'partial';
}

/** The verdict with its scope: "CONFORMANT · HTTP/1.1 only", or the verdict alone. */
export function verdictWithScope(report: Pick<ConformanceReport, 'verdict' | 'scope'>): string {
  const label = scopeLabel(report);
  return label ? `${report.verdict} · ${label}` : report.verdict;
}

/**
 * One line for the reports: what was checked, and, for a partial run, why it is partial — and,
 * under strict, that this is why the verdict is INCOMPLETE and how to make it complete.
 */
export function scopeLine(
  report: Pick<ConformanceReport, 'scope'> & Partial<Pick<ConformanceReport, 'profile'>>,
): string | undefined {
  const scope = report.scope;
  if (!scope) return undefined;
  const checked = `checked over ${scope.protocolsChecked.join(' and ')} (the target offers ${scope.protocolsOffered.join(' and ')}); ${scope.rulesSelected} of ${scope.rulesInCatalog} rules selected${selectionText(scope)}`;
  if (scope.partial.length === 0) return checked;
  const strict =
    report.profile !== undefined && isHeldBackByScope(report.profile, scope) ? ` ${STRICT_PARTIAL}` : '';
  return `PARTIAL: ${scope.partial.join(' ')}${strict} — ${checked}`;
}

/** Why a partial run under strict is INCOMPLETE, and what makes it complete. */
export const STRICT_PARTIAL =
  'Under --profile strict a partial run is never CONFORMANT (at best INCOMPLETE): check every rule over every protocol the target offers (leave out --protocols, or name them all; no --grep), or merge every shard.';
