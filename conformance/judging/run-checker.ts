// The run's checker: after the rules, every exchange the run recorded — whichever rule sent it, at
// whatever level, and the learning requests, the preflight, retries and key minting — is held to
// the run's invariants (conformance/catalog/run-invariants.ts). A rule is a way of producing
// history; this reads all of it, so a cross-tenant read an ADVISORY rule's probe happened to get
// fails the MUST whose statement it breaks. Pure: the history and the run's facts in, the
// violations out, no I/O. It reads exchanges as recorded (exchanges.har: keys shown as their
// variables), so it judges what was on the wire, wherever in the run it was recorded.
import { BREACHES, type Breach, type BreachKind } from '../catalog/run-invariants.ts';
import type { NameValue, RecordedExchange } from '../requests/exchange-record.ts';
import { answerText, authorizationValues, confirmedCopy, dataOf } from './answer-data.ts';
import type { TenantValues } from './tenant-knowledge.ts';

export type TenantRole = 'own' | 'other';
export type Environment = 'production' | 'sandbox';

/** A declared tenant host: whose, and which environment. */
export interface Place {
  tenant: TenantRole;
  environment: Environment;
}

/** What a key of the run is (by the variable reports show it as). */
export interface KeyRole extends Place {
  /** Its permissions include reading customers. */
  reads: boolean;
  /** Revoked before the run: valid nowhere. */
  revoked: boolean;
}

export interface RunFacts {
  /** The declared tenant hosts, by lower-case host name. */
  places: ReadonlyMap<string, Place>;
  /**
   * Host names the target declares for more than one place (a slip in its roles: the sandbox or the
   * other tenant on the base URL's host name): what a request there may see is not known, so the
   * checker does not judge it — the rules that need those roles say what is wrong (target-roles).
   */
  unjudgedHosts?: ReadonlySet<string>;
  /** The run's keys, by the environment variable a recorded request shows each as. */
  keys: ReadonlyMap<string, KeyRole>;
  /** Each tenant's distinctive values, as learned. */
  tenants: Readonly<Partial<Record<TenantRole, TenantValues>>>;
}

/** One recorded exchange of the run, and what sent it (a rule's id, or the learning, the preflight…). */
export interface HistoryEntry {
  madeBy: string;
  exchange: RecordedExchange;
}

export interface Violation {
  kind: BreachKind;
  breach: Breach;
  /** What sent the request: a rule's id, or another part of the run. */
  sender: string;
  exchange: RecordedExchange;
  /** The tenant whose data the answer held, and a few of its values found there. */
  tenant: TenantValues;
  values: string[];
  /** A 304 to a conditional request: its validator lines (answer-data.ts `confirmedCopy`). */
  confirmed?: string;
}

/** Every violation of the run's invariants in the history, in the history's order. */
export function judgeRun(history: readonly HistoryEntry[], facts: RunFacts): Violation[] {
  const violations: Violation[] = [];
  for (const { madeBy, exchange } of history) {
    const found = judgeExchange(exchange, facts);
    if (found) violations.push({ ...found, breach: BREACHES[found.kind], sender: madeBy, exchange });
  }
  return violations;
}

type Found = Pick<Violation, 'kind' | 'tenant' | 'values' | 'confirmed'>;

/** The first breach an exchange shows, if any: only an answer holding a tenant's data can show one. */
export function judgeExchange(exchange: RecordedExchange, facts: RunFacts): Found | undefined {
  const { response, request } = exchange;
  if (!response) return undefined;
  const text = answerText(headerRecord(response.headers), response.body);
  const held = (['own', 'other'] as const).flatMap((role) => {
    const tenant = facts.tenants[role];
    const values = tenant ? dataOf(text, tenant) : [];
    return tenant && values.length > 0 ? [{ role, tenant, values }] : [];
  });
  for (const { role, tenant, values } of held) {
    const kind = breachOf(request, role, facts);
    if (kind) return { kind, tenant, values };
  }
  return confirmedData(exchange, facts);
}

/** A 304 to a conditional request is the host's tenant's data in effect (answer-data.ts). */
function confirmedData(exchange: RecordedExchange, facts: RunFacts): Found | undefined {
  const { response, request } = exchange;
  const fields = request.headers.map(({ name, value }): [string, string] => [name, value]);
  const confirmed = response && confirmedCopy(response.status, fields);
  if (confirmed === undefined) return undefined;
  const role = facts.places.get(new URL(request.url).hostname.toLowerCase())?.tenant;
  const tenant = role && facts.tenants[role];
  if (!role || !tenant) return undefined;
  const kind = breachOf(request, role, facts);
  return kind ? { kind, tenant, values: [], confirmed } : undefined;
}

/** Which breach an answer holding `data`'s tenant's data is, for this request; undefined: none. */
function breachOf(
  request: RecordedExchange['request'],
  data: TenantRole,
  facts: RunFacts,
): BreachKind | undefined {
  const url = new URL(request.url);
  if (url.protocol === 'http:') return 'plain-http';
  const fields = request.headers.map(({ name, value }): [string, string] => [name, value]);
  const credential = credentialOf(authorizationValues(fields), request.httpVersion === 'HTTP/2', facts.keys);
  if (credential.kind === 'none') return 'keyless';
  if (credential.kind === 'breach') return credential.breach;
  if (credential.kind === 'unjudged') return undefined;
  const { role } = credential;
  if (role.revoked) return 'revoked-key';
  if (!role.reads) return 'key-without-permission';
  const names = hostNames(url, fields);
  if (names.some((name) => facts.unjudgedHosts?.has(name))) return undefined;
  if (names.length > 1) {
    // Where the connection (URL, SNI) and Host disagree, a key may be served its own tenant by
    // either name (a front routing by Host): only data of a tenant other than the key's breaks it.
    if (data === role.tenant && names.some((name) => facts.places.get(name)?.tenant === role.tenant))
      return undefined;
    const hostFields = fields.filter(([name]) => name.toLowerCase() === 'host').length;
    return request.httpVersion === 'HTTP/2' && hostFields > 1
      ? 'host-names-two-tenants-h2'
      : 'host-names-two-tenants';
  }
  const place = facts.places.get(names[0] ?? '');
  if (!place) return 'unknown-host';
  if (role.tenant !== place.tenant) return 'cross-key';
  if (role.environment !== place.environment)
    return role.environment === 'sandbox' ? 'sandbox-key-on-production' : 'production-key-on-sandbox';
  return data === role.tenant ? undefined : 'own-key-other-data';
}

/** What the request's Authorization carried, read from its recorded form (keys as `$NAME`). */
type Credential =
  | { kind: 'none' }
  | { kind: 'key'; role: KeyRole }
  | { kind: 'breach'; breach: BreachKind }
  /** A syntax the spec leaves to HTTP (a tab, extra parameters, the key twice): its own rule judges it. */
  | { kind: 'unjudged' };

const VARIABLE = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export function credentialOf(
  values: readonly string[],
  overHttp2: boolean,
  keys: ReadonlyMap<string, KeyRole>,
): Credential {
  const [value, second] = values;
  if (value === undefined) return { kind: 'none' };
  if (second !== undefined)
    return { kind: 'breach', breach: overHttp2 ? 'two-authorization-fields-h2' : 'two-authorization-fields' };
  const scheme = /^bearer(?:[ \t]+|$)/i.exec(value);
  if (!scheme) return { kind: 'breach', breach: 'other-scheme' };
  const token = value.slice(scheme[0].length).trim();
  const variable = VARIABLE.exec(token);
  const named = variable ? (variable[1] ?? variable[2] ?? '') : undefined;
  const role = named === undefined ? undefined : keys.get(named);
  if (role) return { kind: 'key', role };
  const mentions = [...keys.keys()].some((name) => mentionsVariable(token, name));
  if (token === '') return { kind: 'breach', breach: 'empty-or-cut-token' };
  if (/^(["']).*\1$/.test(token) && mentions) return { kind: 'breach', breach: 'quoted-key' };
  if (/[\s,]/.test(token))
    return mentions ? { kind: 'unjudged' } : { kind: 'breach', breach: 'empty-or-cut-token' };
  if (mentions) return { kind: 'breach', breach: 'altered-key' };
  return TOKEN68.test(token) ? { kind: 'breach', breach: 'unknown-key' } : { kind: 'unjudged' };
}

function mentionsVariable(text: string, name: string): boolean {
  return new RegExp(`\\$\\{?${name}(?![A-Za-z0-9_])`).test(text);
}

/** The host names a request gave: its URL's (the connection's, TLS SNI), then each Host field's. */
function hostNames(url: URL, fields: readonly (readonly [string, string])[]): string[] {
  const names = [url.hostname.toLowerCase()];
  for (const [name, value] of fields) if (name.toLowerCase() === 'host') names.push(hostnameOf(value));
  return [...new Set(names)];
}

function hostnameOf(hostField: string): string {
  try {
    return new URL(`https://${hostField.trim()}`).hostname.toLowerCase();
  } catch {
    return hostField.trim().toLowerCase();
  }
}

function headerRecord(headers: readonly NameValue[]): Record<string, string> {
  return Object.fromEntries(headers.map(({ name, value }) => [name, value]));
}
