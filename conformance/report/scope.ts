// What a run covered, and whether that is all there was to cover: the protocols it checked every
// rule over against the protocols the target's hosts agree to by ALPN, the rules it selected
// (--grep, --shard) against the catalog, the lists it followed to their end, and the settings that
// could change a verdict. A run that left an offered protocol, some rules or part of a list out is
// partial: its verdict line, every report, the badge and `verify` say so ("CONFORMANT · HTTP/1.1
// only"), and under --profile strict it is never CONFORMANT (verdict.ts, runVerdict). A setting
// that can change a verdict without leaving anything out (Playwright's --retries) is shown beside
// the verdict wherever it is shown ("CONFORMANT · retries 1").
import type { ConformanceReport, TlsEvidence } from '../../schemas/generated/conformance-report.ts';
import { isHeldBackByScope } from './verdict.ts';
import { shardDisagreements, shardsWithoutRecord, type ShardRecord } from './shard-records.ts';
import { mappedAddress, type HostMap } from '../requests/host-map.ts';
import { vendorsWordOf, type VendorsWordFacts } from './vendor-inputs.ts';

export type Scope = NonNullable<ConformanceReport['scope']>;

/** The settings of a run that can change its verdict, as its scope records them (scope.settings). */
export type ScopeSettings = NonNullable<Scope['settings']>;

export interface ScopeInputs {
  /** The protocols every selected rule was checked over, as reports name them (HTTP/1.1, HTTP/2). */
  protocolsChecked: readonly string[];
  /**
   * How many of the selected rules each protocol was checked for, when some protocol was checked
   * for some rules but not all (shards of one protocol each).
   */
  rulesChecked?: Readonly<Record<string, number>>;
  /** The certificates and protocols of the declared hosts (the preflight's). */
  tls?: readonly TlsEvidence[];
  /** The target's base URL: over https://, a run that recorded no certificate of it is partial. */
  baseUrl?: string;
  /** The target's host map (its `hosts`): where the run sent each name. */
  hostMap?: HostMap;
  rulesSelected: number;
  rulesInCatalog: number;
  grep?: string;
  grepInvert?: string;
  /** The shards the report covers. */
  shards?: readonly string[];
  /** Lists not followed to their end (judging/knowledge.ts), a sentence each. */
  listsCut?: readonly string[];
  /** The settings that can change a verdict. */
  settings?: ScopeSettings;
  /**
   * A merge's shards that are not one run, or whose records disagree with their own results
   * (shard-records.ts, shardDisagreements): what the merge covered is not known.
   */
  shardProblems?: readonly string[];
  /** A merge's shards of which no record was gathered (shard-records.ts, shardsWithoutRecord). */
  shardsWithoutRecord?: readonly string[];
  /** What the report's target records of the inputs that rest on the vendor's word (vendor-inputs.ts). */
  target?: VendorsWordFacts;
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
  const heldOver =
    inputs.protocolsChecked.length > 0
      ? `the rules hold over ${inputs.protocolsChecked.join(' and ')} only`
      : 'no protocol was checked for every rule';
  const rulesChecked = Object.fromEntries(
    Object.entries(inputs.rulesChecked ?? {}).filter(
      ([protocol, count]) => count > 0 && !inputs.protocolsChecked.includes(protocol),
    ),
  );
  const partial = [
    ...missing.map((protocol) => {
      const some = rulesChecked[protocol];
      return some === undefined
        ? `${protocol} was not checked, but the target offers it (${hostsOffering(protocol)}): ${heldOver}.`
        : `${protocol} was checked for ${some} of the ${inputs.rulesSelected} selected rules only, but the target offers it (${hostsOffering(protocol)}): ${heldOver}.`;
    }),
    ...(inputs.rulesSelected < inputs.rulesInCatalog
      ? [
          `${inputs.rulesSelected} of the catalog's ${inputs.rulesInCatalog} rules were selected${selectionText(inputs)}; the others are not evaluated.`,
        ]
      : []),
    ...(inputs.listsCut ?? []),
    ...noCertificate(inputs.baseUrl, inputs.tls ?? []),
    ...otherTenantElsewhere(inputs.tls ?? [], inputs.hostMap ?? {}),
    ...(inputs.shardProblems ?? []).map((problem) => `The merged shards are not one run: ${problem}`),
    ...(inputs.shardsWithoutRecord?.length
      ? [
          `${SHARDS_WITHOUT_RECORD}${inputs.shardsWithoutRecord.join(', ')}: what ${inputs.shardsWithoutRecord.length === 1 ? 'it' : 'they'} ran under (target, settings, certificates) is not known, and ${inputs.shardsWithoutRecord.length === 1 ? 'its' : 'their'} results may be in it all the same. Gather every shard's blob/ folder whole.`,
        ]
      : []),
  ];
  const vendorsWord = inputs.target ? vendorsWordOf(inputs.target) : [];
  return {
    protocolsChecked: [...inputs.protocolsChecked],
    protocolsOffered: offered,
    ...(Object.keys(rulesChecked).length > 0 ? { rulesChecked } : {}),
    rulesSelected: inputs.rulesSelected,
    rulesInCatalog: inputs.rulesInCatalog,
    ...(inputs.grep !== undefined ? { grep: inputs.grep } : {}),
    ...(inputs.grepInvert !== undefined ? { grepInvert: inputs.grepInvert } : {}),
    ...(inputs.shards?.length ? { shards: [...inputs.shards] } : {}),
    ...(inputs.listsCut?.length ? { listsCut: [...inputs.listsCut] } : {}),
    ...(inputs.settings ? { settings: { ...inputs.settings } } : {}),
    ...(vendorsWord.length > 0 ? { vendorsWord } : {}),
    partial,
  };
}

/**
 * The inputs that make `scope` (for `verify`, which recomputes a report's scope from its hosts and
 * a merge's shards).
 */
export function scopeInputsOf(
  scope: Scope,
  tls: readonly TlsEvidence[],
  shards: readonly ShardRecord[] = [],
  hostMap: HostMap = {},
  baseUrl?: string,
  target?: VendorsWordFacts,
): ScopeInputs {
  const shardProblems = shardDisagreements(shards);
  const withoutRecord = shardsWithoutRecord(shards);
  return {
    hostMap,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(target !== undefined ? { target } : {}),
    ...(withoutRecord.length > 0 ? { shardsWithoutRecord: withoutRecord } : {}),
    ...(shardProblems.length > 0 ? { shardProblems } : {}),
    protocolsChecked: scope.protocolsChecked,
    ...(scope.rulesChecked ? { rulesChecked: scope.rulesChecked } : {}),
    tls,
    rulesSelected: scope.rulesSelected,
    rulesInCatalog: scope.rulesInCatalog,
    ...(scope.grep !== undefined ? { grep: scope.grep } : {}),
    ...(scope.grepInvert !== undefined ? { grepInvert: scope.grepInvert } : {}),
    ...(scope.shards ? { shards: scope.shards } : {}),
    ...(scope.listsCut ? { listsCut: scope.listsCut } : {}),
    ...(scope.settings ? { settings: scope.settings } : {}),
  };
}

/** How the partial reason of a merge's shards without a record begins (scopeLabel finds it by it). */
const SHARDS_WITHOUT_RECORD = 'The merge holds no record of shard ';

/** How the partial reason of `noCertificate` begins (scopeLabel finds it by it). */
const NO_CERTIFICATE = 'No certificate of the base URL ';

/**
 * An https:// base URL whose certificate the run did not record: its set-up project (the
 * preflight) did not run — left out by `--no-deps`, a `--project` choice or a file filter — or
 * recorded nothing. What served the rules, and which protocols the target offers, are then not
 * known: the protocols offered are counted from nothing, and the checks of the other tenant's
 * host go quiet.
 */
function noCertificate(baseUrl: string | undefined, tls: readonly TlsEvidence[]): string[] {
  if (baseUrl === undefined || !/^https:/i.test(baseUrl)) return [];
  if (tls.some((entry) => entry.field === 'baseUrl')) return [];
  return [
    `${NO_CERTIFICATE}(${baseUrl}) was recorded: the kit's set-up project (the preflight) did not run, so what served the rules and which protocols the target offers are not known. Run every project of the kit (no --no-deps, no --project or file filter that leaves out its set-up).`,
  ];
}

/** How a partial reason of `otherTenantElsewhere` begins (scopeLabel finds it by it). */
const OTHER_TENANT_ELSEWHERE = 'The other tenant (';

/**
 * The other tenant's host when it is not on the base URL's deployment: the spec's base URL is
 * https://{tenant}.api.{domain}/v1, so two tenants of one deployment differ in the first label of
 * the host alone, on one port. Another domain or port is another address, maybe another deployment
 * (a copy holding the other tenant alone): the isolation rules then compared tenants that never
 * shared a server, and cannot fail, so the run did not check isolation in the deployment.
 */
function otherTenantElsewhere(tls: readonly TlsEvidence[], hostMap: HostMap): string[] {
  const base = tls.find((entry) => entry.field === 'baseUrl')?.host;
  const other = tls.find((entry) => entry.field === 'otherTenantBaseUrl')?.host;
  if (base === undefined || other === undefined) return [];
  const deployment = (host: string): string | undefined => /^[^.:]+\.(.+)$/.exec(host.toLowerCase())?.[1];
  const ours = deployment(base);
  if (ours === undefined) return [];
  const advice =
    'the isolation rules compared tenants of two addresses, not two tenants of one deployment. Give otherTenantBaseUrl a tenant of the same domain and port, sent where the base URL is.';
  if (deployment(other) !== ours)
    return [
      `${OTHER_TENANT_ELSEWHERE}${other}) is not on the base URL's deployment ({tenant}.${ours}): ${advice}`,
    ];
  // One domain, one port, but the host map sends the two names to different addresses.
  const sentTo = (host: string): string => mappedAddress(host.replace(/:\d+$/, ''), hostMap) ?? 'DNS';
  if (sentTo(other) === sentTo(base)) return [];
  return [
    `${OTHER_TENANT_ELSEWHERE}${other}) was sent to ${sentTo(other)} by the host map, the base URL's host (${base}) to ${sentTo(base)}: ${advice}`,
  ];
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
 * headline): "HTTP/1.1 only", "12 of 44 rules", "list cut", "retries 1", or several; undefined
 * for a complete run with no such setting.
 */
export function scopeLabel(report: Pick<ConformanceReport, 'scope'>): string | undefined {
  const scope = report.scope;
  if (!scope) return undefined;
  const missing = scope.protocolsOffered.filter((protocol) => !scope.protocolsChecked.includes(protocol));
  const someRules = missing.filter((protocol) => scope.rulesChecked?.[protocol] !== undefined);
  const labels = [
    ...(missing.length > 0 && someRules.length === 0 && scope.protocolsChecked.length > 0
      ? [`${scope.protocolsChecked.join(' + ')} only`]
      : []),
    ...(missing.length > 0 && (someRules.length > 0 || scope.protocolsChecked.length === 0)
      ? [
          missing
            .map(
              (protocol) =>
                `${protocol} ${scope.rulesChecked?.[protocol] ?? 0} of ${scope.rulesSelected} rules`,
            )
            .join(', '),
        ]
      : []),
    ...(scope.rulesSelected < scope.rulesInCatalog
      ? [`${scope.rulesSelected} of ${scope.rulesInCatalog} rules`]
      : []),
    ...(scope.listsCut?.length ? [scope.listsCut.length === 1 ? 'a list cut' : 'lists cut'] : []),
    ...(scope.partial.some((reason) => reason.startsWith('The merged shards are not one run'))
      ? ['shards disagree']
      : []),
    ...(scope.partial.some((reason) => reason.startsWith(SHARDS_WITHOUT_RECORD)) ? ['shards missing'] : []),
    ...(scope.partial.some((reason) => reason.startsWith(NO_CERTIFICATE)) ? ['no certificate'] : []),
    ...(scope.partial.some((reason) => reason.startsWith(OTHER_TENANT_ELSEWHERE))
      ? ['other tenant elsewhere']
      : []),
  ];
  if (labels.length === 0 && scope.partial.length > 0) labels.push('partial');
  if (scope.settings?.retries) labels.push(`retries ${scope.settings.retries}`);
  return labels.length > 0 ? labels.join(', ') : undefined;
}

/** The verdict with its scope: "CONFORMANT · HTTP/1.1 only", or the verdict alone. */
export function verdictWithScope(report: Pick<ConformanceReport, 'verdict' | 'scope'>): string {
  // A set-up error checked nothing: no scope to qualify it with.
  const label = report.verdict === 'SETUP ERROR' ? undefined : scopeLabel(report);
  return label ? `${report.verdict} · ${label}` : report.verdict;
}

/**
 * One line for the reports: what was checked, and, for a partial run, why it is partial — and,
 * under strict, that this is why the verdict is INCOMPLETE and how to make it complete.
 */
export function scopeLine(
  report: Pick<ConformanceReport, 'scope'> & Partial<Pick<ConformanceReport, 'profile' | 'verdict'>>,
): string | undefined {
  const scope = report.scope;
  if (!scope) return undefined;
  // What was never reached is not described: the protocols "offered" are then only a default.
  if (report.verdict === 'SETUP ERROR') return SETUP_ERROR_SCOPE;
  const over = scope.protocolsChecked.length > 0 ? scope.protocolsChecked.join(' and ') : 'no one protocol';
  const checked = `checked over ${over} (the target offers ${scope.protocolsOffered.join(' and ')}); ${scope.rulesSelected} of ${scope.rulesInCatalog} rules selected${selectionText(scope)}${settingsText(scope.settings)}`;
  if (scope.partial.length === 0) return checked;
  const strict =
    report.profile !== undefined && isHeldBackByScope(report.profile, scope) ? ` ${STRICT_PARTIAL}` : '';
  return `PARTIAL: ${scope.partial.join(' ')}${strict} — ${checked}`;
}

/** The scope of a run the set-up stopped: nothing checked, nothing known of the target. */
export const SETUP_ERROR_SCOPE =
  'nothing was checked: the set-up stopped before any rule ran, so nothing is known of the protocols the target offers or of its rules.';

/** Why a partial run under strict is INCOMPLETE, and what makes it complete. */
export const STRICT_PARTIAL =
  'Under --profile strict a partial run is never CONFORMANT (at best INCOMPLETE): check every rule over every protocol the target offers (leave out --protocols, or name them all; no --grep), merge every shard, follow every list to its end (raise --max-list-pages or --max-list-records), and name another tenant of the same deployment (otherTenantBaseUrl on the domain and port of the base URL).';

/** The settings that can change a verdict, as the scope line ends: "; retries 1, lists up to 10 pages…". */
function settingsText(settings: ScopeSettings | undefined): string {
  if (!settings) return '';
  return `; Playwright retries ${settings.retries}, up to ${settings.maxRetries} retries of a transient answer within ${settings.retryBudgetSeconds} s, lists followed up to ${settings.maxListPages} pages or ${settings.maxListRecords} records, ${settings.requestTimeoutSeconds} s per exchange`;
}
