// How each client rule reads one journal entry: not applicable to it, kept, or broken (with what
// was wrong, in words that never hold a key). One check per rule of conformance/catalog/client-rules.ts,
// so that a rule without a check does not compile. Least privilege looks at a client's entries
// together and is judged in judge.ts; the rules about what a client does next, in history-checks.ts.
import type { JournalEntry } from '../../schemas/generated/journal.ts';
import type { ClientRuleId } from '../catalog/client-rules.ts';
import type { HistoryRuleId } from './history-checks.ts';

/** The rule says nothing about this entry (e.g. Content-Type on a request without a body). */
export const NOT_APPLICABLE = Symbol('not applicable');
/** undefined: the entry keeps the rule; a string: how it breaks it. */
export type CheckResult = typeof NOT_APPLICABLE | string | undefined;
export type EntryCheck = (entry: JournalEntry) => CheckResult;

const UNKNOWN_KEY = 'unknown key';

function isRequest(entry: JournalEntry): boolean {
  return entry.transport !== 'tls';
}

function hasAuthorization(entry: JournalEntry): boolean {
  return isRequest(entry) && entry.authorization !== 'missing' && entry.authorization !== 'not-applicable';
}

/** What was on the wire: the SNI's name, and the request's host by the field that carried it. */
function sniMismatch(entry: JournalEntry): string {
  const hostField = entry.protocol === 'h2' ? 'the :authority' : 'the Host header';
  const sni = entry.sniName === undefined ? 'SNI' : `SNI ${entry.sniName}`;
  // No host, or several: the request named none the SNI could match.
  if (entry.hostName === undefined) return `the connection's ${sni} named a host, ${hostField} no single one`;
  return `the connection's ${sni} named another host than ${hostField} ${entry.hostName}`;
}

export const ENTRY_CHECKS: Record<
  Exclude<ClientRuleId, 'CLIENT-LEAST-PRIVILEGE' | HistoryRuleId>,
  EntryCheck
> = {
  'CLIENT-AUTH-HEADER': (entry) => {
    if (!isRequest(entry)) return NOT_APPLICABLE;
    return entry.authorization === 'missing' ? 'no Authorization header' : undefined;
  },
  'CLIENT-AUTH-BEARER': (entry) => {
    if (!hasAuthorization(entry)) return NOT_APPLICABLE;
    return entry.authorization === 'other-scheme' ? 'another scheme than Bearer, or a bare key' : undefined;
  },
  'CLIENT-AUTH-NO-QUOTES': (entry) => {
    if (!hasAuthorization(entry)) return NOT_APPLICABLE;
    return entry.authorization === 'quoted' ? 'the key was in quotation marks' : undefined;
  },
  'CLIENT-AUTH-WELL-FORMED': (entry) => {
    if (!hasAuthorization(entry)) return NOT_APPLICABLE;
    if (entry.authorization === 'duplicate') return 'more than one Authorization header';
    if (entry.authorization === 'folded')
      return 'several Bearer credentials folded into one Authorization field (Bearer K, Bearer K)';
    return entry.authorization === 'malformed'
      ? 'a malformed Bearer credential (empty, tab, inner space, parameters)'
      : undefined;
  },
  'CLIENT-KEY-NOT-IN-URL': (entry) => {
    if (!isRequest(entry)) return NOT_APPLICABLE;
    const where = entry.urlCredentials ?? [];
    return where.length > 0 ? `a credential in the URL (${where.join(', ')})` : undefined;
  },
  'CLIENT-HTTPS-ONLY': (entry) => {
    if (!isRequest(entry)) return NOT_APPLICABLE;
    if (entry.transport !== 'http') return undefined;
    if (entry.key === undefined) return 'a request over plain HTTP';
    return entry.keyRevoked === true
      ? 'a revoked key sent over plain HTTP (nothing to rotate)'
      : 'a key sent over plain HTTP: EXPOSED (critical), rotate it';
  },
  'CLIENT-TLS-SNI': (entry) => {
    if (entry.transport === 'http') return NOT_APPLICABLE;
    if (entry.sni === 'missing') return 'a TLS connection without SNI';
    return entry.sni === 'mismatch' ? sniMismatch(entry) : undefined;
  },
  'CLIENT-TENANT-HOST': (entry) => {
    if (!isRequest(entry)) return NOT_APPLICABLE;
    switch (entry.host) {
      case 'tenant':
        return undefined;
      case 'ip-literal':
        return 'the host was an IP address, not the tenant host';
      case 'missing':
        return 'no single Host header';
      case 'other':
        return 'a host that is no tenant API host';
    }
  },
  'CLIENT-NO-TENANT-FIELDS': (entry) => {
    if (!isRequest(entry)) return NOT_APPLICABLE;
    const fields = entry.tenantFields ?? [];
    return fields.length > 0 ? `tenant id fields sent (${fields.join(', ')})` : undefined;
  },
  'CLIENT-CONTENT-TYPE-JSON': (entry) => {
    if (!isRequest(entry) || !entry.hasBody) return NOT_APPLICABLE;
    if (entry.contentType === 'json') return undefined;
    return entry.contentType === 'missing'
      ? 'a body without Content-Type'
      : 'a body with a Content-Type other than application/json';
  },
  'CLIENT-ACCEPT-JSON': (entry) => {
    if (!isRequest(entry) || (entry.method !== 'GET' && entry.method !== 'HEAD')) return NOT_APPLICABLE;
    if (entry.accept === 'json') return undefined;
    return entry.accept === 'missing'
      ? 'a read without Accept'
      : 'a read whose Accept does not name application/json';
  },
  'CLIENT-KEY-KNOWN': (entry) => {
    // Without a tenant host there is no tenant whose keys it could be (CLIENT-TENANT-HOST says so).
    if (entry.key === undefined || entry.host !== 'tenant') return NOT_APPLICABLE;
    return entry.key === UNKNOWN_KEY
      ? `a key the server does not know for this tenant (fingerprint ${entry.keyFingerprint ?? '?'})`
      : undefined;
  },
  'CLIENT-KEY-ENVIRONMENT': (entry) => {
    if (entry.keyEnvironment === undefined || entry.environment === undefined) return NOT_APPLICABLE;
    return entry.keyEnvironment === entry.environment
      ? undefined
      : `a ${entry.keyEnvironment === 'sandbox' ? 'sandbox (development)' : 'production'} key on a ${entry.environment} host`;
  },
};
