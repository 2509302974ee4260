// Knock-on failures, derived instead of listed: each rule says once, here, which answers of the
// target its verdict reads; a fault that changes a whole kind of answer says so once (`knockOn`),
// and every rule reading that kind is expected to fail against it. A new rule is classified once
// (the compiler asks for it) and never needs an edit of the faults.
import { RULES, type RuleId } from '../conformance/catalog/rules.ts';

/** Which answers of the target a rule's verdict reads. */
export type Reading =
  /** The TLS handshake: the certificate. */
  | 'tls'
  /** The plain-HTTP listener's answers. */
  | 'plain-http'
  /** The answers of the host checks (which tenant, which connection), before authentication. */
  | 'host-check'
  /**
   * The spec's own answer (its status, error code or data) to a request that got past the host
   * checks: authentication, permission and the resource.
   */
  | 'authenticated-path'
  /** Only that a request is refused without data: any refusal passes. */
  | 'refusal'
  /** A header field or the body's shape of whatever is answered. */
  | 'any-answer'
  /** A comparison with the tenants' data or with a baseline answer; without data, not evaluated. */
  | 'tenant-comparison';

export const READING: Readonly<Record<RuleId, Reading>> = {
  'TRANSPORT-HTTPS-CERT': 'tls',
  'TRANSPORT-PLAIN-HTTP-REJECTED': 'plain-http',
  'TRANSPORT-PLAIN-HTTP-KEY-REJECTED': 'plain-http',
  'TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED': 'plain-http',
  'TRANSPORT-PLAIN-HTTP-H2C-REJECTED': 'plain-http',
  'TRANSPORT-PLAIN-HTTP-H2C-NOT-SWITCHED': 'plain-http',
  'TRANSPORT-NO-REDIRECT': 'plain-http',
  'TRANSPORT-HSTS': 'any-answer',
  'AUTH-MISSING-HEADER': 'authenticated-path',
  'AUTH-MISSING-HEADER-401': 'authenticated-path',
  'AUTH-OTHER-SCHEME-REJECTED': 'authenticated-path',
  'AUTH-SCHEME-CASE-INSENSITIVE': 'authenticated-path',
  'AUTH-QUOTED-KEY-REJECTED': 'authenticated-path',
  'AUTH-MALFORMED-BEARER-REJECTED': 'refusal',
  'AUTH-BEARER-SYNTAX-REJECTED': 'refusal',
  'AUTH-DUPLICATE-HEADER-REJECTED': 'refusal',
  'AUTH-H2-DUPLICATE-AUTHORIZATION-REJECTED': 'refusal',
  'AUTH-URL-CREDENTIALS-IGNORED': 'authenticated-path',
  // Without the tenant's own data to look for, not evaluated.
  'AUTH-COOKIE-NOT-CREDENTIAL': 'tenant-comparison',
  'KEY-VALID-SERVED': 'authenticated-path',
  'KEY-UNKNOWN-REJECTED': 'authenticated-path',
  'KEY-ALTERED-REJECTED': 'authenticated-path',
  'KEY-REVOKED-REJECTED': 'authenticated-path',
  'KEY-INVALID-401': 'authenticated-path',
  'KEY-NOT-ECHOED': 'any-answer',
  'TENANT-OWN-DATA-ONLY': 'tenant-comparison',
  'TENANT-CROSS-KEY-REJECTED': 'authenticated-path',
  'TENANT-CROSS-KEY-INDISTINGUISHABLE': 'tenant-comparison',
  'TENANT-UNKNOWN-HOST-REJECTED': 'host-check',
  'TENANT-ID-FIELDS-IGNORED': 'tenant-comparison',
  'TENANT-FORWARDED-HOST-IGNORED': 'tenant-comparison',
  'TENANT-SNI-HOST-MISMATCH-NO-DATA': 'tenant-comparison',
  'TENANT-SNI-HOST-MISMATCH-421': 'host-check',
  'TENANT-H2-AUTHORITY-HOST-CONFLICT-NO-DATA': 'tenant-comparison',
  'TENANT-H2-AUTHORITY-HOST-CONFLICT-REJECTED': 'host-check',
  'TENANT-H2-COALESCED-CONNECTION-ISOLATED': 'tenant-comparison',
  // Without the tenant's own data to look for, not evaluated.
  'TENANT-CACHED-ANSWER-NOT-SHARED': 'tenant-comparison',
  // Without the other tenant's data or a next page of its list, not evaluated.
  'TENANT-OTHER-PAGE-CURSOR-NO-DATA': 'tenant-comparison',
  'ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED': 'authenticated-path',
  'ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED': 'authenticated-path',
  'ENV-SANDBOX-KEY-SERVED': 'authenticated-path',
  'PERM-INSUFFICIENT-REJECTED': 'authenticated-path',
  'PERM-INSUFFICIENT-403': 'authenticated-path',
  'PERM-READ-ONLY-READS': 'authenticated-path',
  'ERROR-BODY-SHAPE': 'any-answer',
  'ERROR-NO-STORE': 'any-answer',
  // A header of the served answer; without a served answer (a 404, say), not evaluated.
  'CACHE-SERVED-NOT-SHARED': 'tenant-comparison',
  'VERSION-PATH': 'authenticated-path',
};

/** What a fault does to a whole kind of answer. */
export type KnockOn = 'authenticated-path-not-found';

const KNOCK_ONS: Readonly<Record<KnockOn, { breaks: Reading; reason: string }>> = {
  'authenticated-path-not-found': {
    breaks: 'authenticated-path',
    reason: 'Its request to {base_url}/customers gets 404 not_found.',
  },
};

/** A fault's entry, as far as its consequences go (fault.ts). */
interface Consequences {
  catches: readonly RuleId[];
  alsoFails?: Readonly<Partial<Record<RuleId, string>>>;
  knockOn?: KnockOn;
}

/**
 * Every rule that fails against a fault besides those it `catches`, each with why: its own
 * `alsoFails`, and the rules that read the kind of answer its `knockOn` changes.
 */
export function consequencesOf(fault: Consequences): Partial<Record<RuleId, string>> {
  const knockOn = fault.knockOn === undefined ? undefined : KNOCK_ONS[fault.knockOn];
  const derived: Partial<Record<RuleId, string>> = {};
  if (knockOn) {
    for (const { id } of RULES)
      if (READING[id] === knockOn.breaks && !fault.catches.includes(id)) derived[id] = knockOn.reason;
  }
  return { ...derived, ...fault.alsoFails };
}
