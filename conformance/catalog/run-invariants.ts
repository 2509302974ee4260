// The run's invariants, and which MUST rule each way of breaking one fails. After the rules have
// run, every exchange of the run (every rule's probes at every level, the learning requests, the
// preflight, retries, key minting) is held to these (conformance/judging/run-checker.ts): a
// violation fails the MUST whose statement it breaks, whichever rule sent the request. Data, in
// the catalog's layer, so that docs/rules.md renders the table from the same rows the checker reads.
import type { RuleId } from './rules.ts';

export const RUN_INVARIANTS = {
  'NO-DATA-OVER-PLAIN-HTTP': 'No answer over plain HTTP holds a tenant’s data.',
  'NO-DATA-WITHOUT-VALID-KEY':
    'No answer holds a tenant’s data — or confirms a stored copy of the host’s tenant’s answer (304 Not Modified to a conditional request) — unless its request carried, in Authorization, a valid key of that tenant and of the environment of the host it was sent to.',
  'NO-OTHER-TENANT-DATA':
    'No answer, in its body or its headers, holds data of a tenant other than the one whose key the request carried.',
} as const;

export type InvariantId = keyof typeof RUN_INVARIANTS;

/** One way of breaking an invariant: the request's shape, and the MUST whose statement it breaks. */
export interface Breach {
  invariant: InvariantId;
  /** The request, in words: what the table in docs/rules.md says in its first column. */
  request: string;
  rule: RuleId;
}

/** Checked in this order: the first that fits an exchange names its rule. */
export const BREACHES = {
  'plain-http': {
    invariant: 'NO-DATA-OVER-PLAIN-HTTP',
    request: 'any request over plain HTTP (with a key or without)',
    rule: 'TRANSPORT-PLAIN-HTTP-REJECTED',
  },
  keyless: {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'a request without an Authorization header (cookies, a key in the URL, nothing)',
    rule: 'AUTH-MISSING-HEADER',
  },
  'two-authorization-fields': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'a request with two Authorization headers (over HTTP/1.1)',
    rule: 'AUTH-DUPLICATE-HEADER-REJECTED',
  },
  'two-authorization-fields-h2': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'a request with two authorization fields (over HTTP/2)',
    rule: 'AUTH-H2-DUPLICATE-AUTHORIZATION-REJECTED',
  },
  'other-scheme': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'Authorization with another scheme than Bearer, or none',
    rule: 'AUTH-OTHER-SCHEME-REJECTED',
  },
  'empty-or-cut-token': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'Bearer with an empty token, or with a token cut by a space that holds no key of the run',
    rule: 'AUTH-MALFORMED-BEARER-REJECTED',
  },
  'quoted-key': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'Bearer with a key of the run in quotes',
    rule: 'AUTH-QUOTED-KEY-REJECTED',
  },
  'altered-key': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'Bearer with a key of the run truncated, extended or in another letter case',
    rule: 'KEY-ALTERED-REJECTED',
  },
  'unknown-key': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'Bearer with a token that is no key of the run',
    rule: 'KEY-UNKNOWN-REJECTED',
  },
  'revoked-key': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'Bearer with the revoked key',
    rule: 'KEY-REVOKED-REJECTED',
  },
  'key-without-permission': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'Bearer with the key without the customers permission',
    rule: 'PERM-INSUFFICIENT-REJECTED',
  },
  'host-names-two-tenants-h2': {
    invariant: 'NO-OTHER-TENANT-DATA',
    request:
      'over HTTP/2, a request whose :authority and host field name different hosts, answered with data of a tenant other than its key’s',
    rule: 'TENANT-H2-AUTHORITY-HOST-CONFLICT-NO-DATA',
  },
  'host-names-two-tenants': {
    invariant: 'NO-OTHER-TENANT-DATA',
    request:
      'a request whose Host (or :authority) names another host than its URL (the TLS SNI), answered with data of a tenant other than its key’s',
    rule: 'TENANT-SNI-HOST-MISMATCH-NO-DATA',
  },
  'unknown-host': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'a valid key on a host that is no declared tenant host (a tenant that does not exist)',
    rule: 'TENANT-UNKNOWN-HOST-REJECTED',
  },
  'cross-key': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'a tenant’s valid key on another tenant’s host (data of either tenant)',
    rule: 'TENANT-CROSS-KEY-REJECTED',
  },
  'sandbox-key-on-production': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'a development (sandbox) key on the production host',
    rule: 'ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED',
  },
  'production-key-on-sandbox': {
    invariant: 'NO-DATA-WITHOUT-VALID-KEY',
    request: 'a production key on the sandbox host',
    rule: 'ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED',
  },
  'own-key-other-data': {
    invariant: 'NO-OTHER-TENANT-DATA',
    request: 'a tenant’s valid key on its own host, answered with another tenant’s data',
    rule: 'TENANT-OWN-DATA-ONLY',
  },
} as const satisfies Record<string, Breach>;

export type BreachKind = keyof typeof BREACHES;
