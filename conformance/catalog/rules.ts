// The rule catalog: every rule the suite checks, as data. An id never changes meaning once
// published (tests/conformance/catalog/rule-ids.snapshot.json holds the list); the wording may improve.
// Levels are those of docs/decisions.md: MUST (a sentence of the spec), HTTP (RFC 9110 /
// RFC 6750 where the spec is silent), ADVISORY (security practice). Over 300 lines on purpose:
// one table, so that each rule has one place and the whole catalog reads top to bottom.

export type Level = 'MUST' | 'HTTP' | 'ADVISORY';

/** The inputs of a target a rule needs; a rule whose inputs are missing is not evaluated. */
export type Input =
  | 'otherTenantBaseUrl'
  | 'sandboxBaseUrl'
  | 'credentials.fullAccess'
  | 'credentials.readOnly'
  | 'credentials.noCustomersPermission'
  | 'credentials.revoked'
  | 'credentials.sandbox'
  | 'credentials.otherTenant'
  | 'credentials.probe';

export interface Rule {
  id: string;
  level: Level;
  /** Where in the spec (or which standard) the rule comes from. */
  source: string;
  statement: string;
  needs: readonly Input[];
  /**
   * A rule of HTTP/2's own: checked over HTTP/2 whenever the target offers it, and holding when it
   * does not (no HTTP/2 request can reach it). Its verdict is HTTP/2's alone in a run over both.
   */
  http2Only?: true;
}

export const RULES = [
  // Transport (spec §5 Scheme 4)
  {
    id: 'TRANSPORT-HTTPS-CERT',
    level: 'MUST',
    source: 'spec §5 Scheme 4; §4 base_url',
    statement: 'The tenant host is served over HTTPS with a certificate that is valid for that host name.',
    needs: [],
  },
  {
    id: 'TRANSPORT-PLAIN-HTTP-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 4',
    statement:
      'A plain-HTTP request is not served: it is refused, reset or answered with an error status (4xx), never redirected and never with data.',
    needs: [],
  },
  {
    id: 'TRANSPORT-PLAIN-HTTP-KEY-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 4',
    statement:
      'A plain-HTTP request that carries a valid key is not served either: refused, reset or answered with an error status.',
    needs: ['credentials.probe'],
  },
  {
    id: 'TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 4',
    statement:
      'A plain-HTTP request with a valid key and a header saying it arrived over HTTPS (X-Forwarded-Proto: https, Forwarded: proto=https, X-Forwarded-Ssl: on, Front-End-Https: on, X-Forwarded-Scheme: https, X-Url-Scheme: https, X-Forwarded-Port: 443) is not served: refused, reset or answered with an error status, never with data.',
    needs: ['credentials.probe'],
  },
  {
    id: 'TRANSPORT-PLAIN-HTTP-H2C-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 4; RFC 9113 §3',
    statement:
      'HTTP/2 without TLS (h2c) on the plain-HTTP port is not served, with or without a valid key: a request by prior knowledge and a request asking Upgrade: h2c are refused, reset or answered with an error status, never with data (a switch to HTTP/2, 101, followed by an error status or by no answer, serves nothing: it is a rejection). Every probe is sent.',
    needs: ['credentials.probe'],
  },
  {
    id: 'TRANSPORT-PLAIN-HTTP-H2C-NOT-SWITCHED',
    level: 'ADVISORY',
    source: 'RFC 9113 §3.1 (the h2c upgrade is deprecated); h2c smuggling past fronts',
    statement:
      'The plain-HTTP port does not switch to HTTP/2 without TLS: a request asking Upgrade: h2c is not answered 101 Switching Protocols.',
    needs: [],
  },
  {
    id: 'TRANSPORT-NO-REDIRECT',
    level: 'ADVISORY',
    source: 'OWASP ASVS 5.0, secure communication',
    statement:
      'Plain HTTP is not redirected to HTTPS, which would teach clients that sending a key over HTTP works.',
    needs: [],
  },
  {
    id: 'TRANSPORT-HSTS',
    level: 'ADVISORY',
    source: 'OWASP ASVS 5.0, browser security headers; RFC 6797',
    statement: 'HTTPS responses carry a Strict-Transport-Security header.',
    needs: [],
  },

  // The Authorization header (spec §5 Scheme, §7)
  {
    id: 'AUTH-MISSING-HEADER',
    level: 'MUST',
    source: 'spec §7 Authentication errors',
    statement: 'A request without an Authorization header is rejected with missing_authorization_header.',
    needs: [],
  },
  {
    id: 'AUTH-MISSING-HEADER-401',
    level: 'HTTP',
    source: 'RFC 9110 §11.6.1; RFC 6750 §3',
    statement: 'A request without credentials is answered 401 with a WWW-Authenticate: Bearer challenge.',
    needs: [],
  },
  {
    id: 'AUTH-OTHER-SCHEME-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 1',
    statement:
      'A key sent with another scheme (Basic, Token) or without a scheme is rejected with missing_authorization_header or invalid_api_key, with no data.',
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'AUTH-SCHEME-CASE-INSENSITIVE',
    level: 'ADVISORY',
    source: 'RFC 9110 §11.1',
    statement: 'The scheme name is case-insensitive: `bearer` and `BEARER` work like `Bearer`.',
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'AUTH-QUOTED-KEY-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 2',
    statement:
      'A key in double or single quotes is rejected with invalid_api_key, with no data; quotes are never stripped.',
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'AUTH-MALFORMED-BEARER-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 1; §1 (every request is authenticated with an API key)',
    statement:
      'Bearer with an empty token, or with a space inside the key (the key cut in two), is rejected, with no data: neither carries the key.',
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'AUTH-BEARER-SYNTAX-REJECTED',
    level: 'HTTP',
    source: 'RFC 6750 §2.1; RFC 9110 §11.4',
    statement:
      'Bearer followed by a tab instead of a space, by the key and extra parameters, or by the key twice is rejected, with no data: the syntax is exactly one space and one token68.',
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'AUTH-DUPLICATE-HEADER-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 1',
    statement:
      'A request with two Authorization headers is rejected (an error status; the spec names none), with no data, whichever comes first.',
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'AUTH-H2-DUPLICATE-AUTHORIZATION-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 1; RFC 9113 §4.3, §8.2',
    statement:
      'Over HTTP/2, a request whose header block holds two authorization fields — both in its HEADERS frame, or the second in a CONTINUATION frame — is rejected (an error status, or its stream reset), with no data, whichever comes first.',
    needs: ['credentials.fullAccess'],
    http2Only: true,
  },
  {
    id: 'AUTH-URL-CREDENTIALS-IGNORED',
    level: 'MUST',
    source: 'spec §5 Scheme 5',
    statement:
      'A valid key in a URL parameter (access_token, api_key, apikey, key, token) never authenticates: the request is rejected with missing_authorization_header, with no data.',
    needs: ['credentials.probe'],
  },
  {
    id: 'AUTH-COOKIE-NOT-CREDENTIAL',
    level: 'MUST',
    source: 'spec §5 Scheme 1; §7',
    statement:
      "The key in Authorization is the only credential: the cookies the deployment set on a served answer, sent back without Authorization, get no data and missing_authorization_header on this tenant's host, and no tenant's data on the other tenant's host. Not applicable when a served answer sets no cookie.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl'],
  },

  // Keys (spec §5, §7)
  {
    id: 'KEY-VALID-SERVED',
    level: 'MUST',
    source: 'spec §1; §4 GET /customers',
    statement:
      "A valid Full Access key is served the tenant's customers as JSON at GET {base_url}/customers.",
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'KEY-UNKNOWN-REJECTED',
    level: 'MUST',
    source: 'spec §7 Authentication errors',
    statement: 'An unknown key is rejected with invalid_api_key.',
    needs: [],
  },
  {
    id: 'KEY-ALTERED-REJECTED',
    level: 'MUST',
    source: 'spec §7 Authentication errors',
    statement:
      'A valid key truncated, extended, with one character changed or in another letter case is rejected with invalid_api_key.',
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'KEY-REVOKED-REJECTED',
    level: 'MUST',
    source: 'spec §5 Handling rules; §7',
    statement: 'A revoked key is rejected with invalid_api_key.',
    needs: ['credentials.revoked'],
  },
  {
    id: 'KEY-INVALID-401',
    level: 'HTTP',
    source: 'RFC 6750 §3.1',
    statement: 'An invalid key is answered 401 with a WWW-Authenticate: Bearer challenge.',
    needs: [],
  },
  {
    id: 'KEY-NOT-ECHOED',
    level: 'ADVISORY',
    source: 'OWASP ASVS 5.0, security logging and error handling',
    statement: 'No error response repeats the key that was presented.',
    needs: ['credentials.fullAccess'],
  },

  // Tenant isolation (spec §1, §5 Tenant identification)
  {
    id: 'TENANT-OWN-DATA-ONLY',
    level: 'MUST',
    source: 'spec §1; §5 Tenant identification 1',
    statement:
      "A valid key is served its own tenant's data and no value of another tenant's data, on the first page of its list and on every page after it the run follows.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
  },
  {
    id: 'TENANT-CROSS-KEY-REJECTED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 2',
    statement:
      "Another tenant's valid key on this tenant's host is rejected (invalid_api_key or insufficient_permissions), with no data of either tenant.",
    needs: ['otherTenantBaseUrl', 'credentials.otherTenant', 'credentials.fullAccess'],
  },
  {
    id: 'TENANT-CROSS-KEY-INDISTINGUISHABLE',
    level: 'ADVISORY',
    source: 'OWASP API Security Top 10 2023 API2; CWE-204',
    statement: "Another tenant's key gets the same status, body and header names as an unknown key.",
    needs: ['credentials.otherTenant'],
  },
  {
    id: 'TENANT-UNKNOWN-HOST-REJECTED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1, 2',
    statement:
      'A well-formed host of a tenant that does not exist is rejected — not resolved, refused, or answered with an error status — with no data, even with a valid key of another tenant.',
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'TENANT-ID-FIELDS-IGNORED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1, 3',
    statement:
      'tenant_id, company_id and organization_id in headers or the query never change the tenant: they add no data of the tenant they name to what the same request without them is served.',
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
  },
  {
    id: 'TENANT-FORWARDED-HOST-IGNORED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1',
    statement:
      'X-Forwarded-Host, Forwarded, X-Original-Host, X-Host, X-Forwarded-Server, X-HTTP-Host-Override and X-Tenant-Id naming another tenant, and X-Original-URL or X-Rewrite-URL giving its URL, never change the tenant: they add no data of that tenant to what the same request without them is served.',
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
  },
  {
    id: 'TENANT-SNI-HOST-MISMATCH-NO-DATA',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1; RFC 9110 §7.4',
    statement:
      "On a connection opened (TLS SNI) for this tenant with a Host header naming another tenant, no key gets data of a tenant other than its own: this tenant's key gets none of the other's, the other tenant's key none of this one's.",
    needs: ['otherTenantBaseUrl', 'credentials.otherTenant', 'credentials.fullAccess'],
  },
  {
    id: 'TENANT-SNI-HOST-MISMATCH-421',
    level: 'ADVISORY',
    source: 'RFC 9110 §7.4, §15.5.20; a defence against domain fronting',
    statement: 'An SNI/Host mismatch is answered 421 Misdirected Request.',
    needs: ['otherTenantBaseUrl'],
  },
  {
    id: 'TENANT-H2-AUTHORITY-HOST-CONFLICT-NO-DATA',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1; RFC 9113 §8.3.1',
    statement:
      "Over HTTP/2, in a request whose :authority names this tenant and whose host field names the other tenant, no key gets data of a tenant other than its own: this tenant's key gets none of the other's, the other tenant's key none of this one's (a reset stream holds none).",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
    http2Only: true,
  },
  {
    id: 'TENANT-H2-AUTHORITY-HOST-CONFLICT-REJECTED',
    level: 'HTTP',
    source: 'RFC 9113 §8.3.1',
    statement:
      "Over HTTP/2, a request whose :authority names this tenant and whose host field names the other tenant is rejected as malformed (its stream reset, or a 4xx), with data of neither tenant, even with this tenant's key.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl'],
    http2Only: true,
  },
  {
    id: 'TENANT-H2-COALESCED-CONNECTION-ISOLATED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1; RFC 9113 §9.1.1; RFC 9110 §7.4',
    statement:
      "Over HTTP/2, on one connection opened (TLS SNI) for this tenant and used first for its own request with its key, no later request gets data its key does not own: the other tenant's request with its key gets none of this tenant's data, with this tenant's key none of the other's, and a request without a key, for either tenant, none at all.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
    http2Only: true,
  },
  {
    id: 'TENANT-CACHED-ANSWER-NOT-SHARED',
    level: 'MUST',
    source: 'spec §1, §5 Tenant identification 2; RFC 9111 §3.5',
    statement:
      "Right after GET {base_url}/customers is served to a valid key, the same URL asked without a key, with an unknown key, and (where the target declares them) with the other tenant's key and a development key gets no data of either tenant, from a cache or otherwise.",
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'TENANT-OTHER-PAGE-CURSOR-NO-DATA',
    level: 'MUST',
    source: 'spec §1 (the data of each tenant is isolated); OWASP API Security Top 10 2023 API1',
    statement:
      "The next-page link or cursor of the other tenant's customer list, sent with this tenant's key to this tenant's host, is refused or serves this tenant's own data: never a value of the other tenant's data. Not evaluated when the other tenant's list names no next page.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
  },

  // Environments (spec §5 Environments, Key types)
  {
    id: 'ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED',
    level: 'MUST',
    source: 'spec §1; §5 Environments, Key types',
    statement:
      'A development (sandbox) key on the production API is rejected with an authentication error, with no data.',
    needs: ['credentials.sandbox'],
  },
  {
    id: 'ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED',
    level: 'MUST',
    source: 'spec §1; §5 Environments, Key types',
    statement: 'A production key on the sandbox API is rejected with an authentication error, with no data.',
    needs: ['sandboxBaseUrl', 'credentials.fullAccess'],
  },
  {
    id: 'ENV-SANDBOX-KEY-SERVED',
    level: 'MUST',
    source: 'spec §5 Environments, Key types',
    statement: 'A development key is served on the sandbox API.',
    needs: ['sandboxBaseUrl', 'credentials.sandbox'],
  },

  // Permissions (spec §5 Authentication versus authorization, §7)
  {
    id: 'PERM-INSUFFICIENT-REJECTED',
    level: 'MUST',
    source: 'spec §5 Authentication versus authorization; §7',
    statement:
      'A valid key without the permission for the operation is rejected with insufficient_permissions, with no data.',
    needs: ['credentials.noCustomersPermission'],
  },
  {
    id: 'PERM-INSUFFICIENT-403',
    level: 'HTTP',
    source: 'RFC 9110 §15.5.4; RFC 6750 §3.1',
    statement: 'insufficient_permissions is answered 403.',
    needs: ['credentials.noCustomersPermission'],
  },
  {
    id: 'PERM-READ-ONLY-READS',
    level: 'MUST',
    source: 'spec §5 Key types',
    statement: 'A Read Only key can read customers.',
    needs: ['credentials.readOnly'],
  },

  // Errors and versioning (spec §7, §9)
  {
    id: 'ERROR-BODY-SHAPE',
    level: 'MUST',
    source: 'spec §7 Error body',
    statement:
      'Every authentication error is a JSON object with one member `error` holding the string fields `code` and `message`, sent as application/json.',
    needs: [],
  },
  {
    id: 'ERROR-NO-STORE',
    level: 'ADVISORY',
    source: 'OWASP ASVS 5.0, data protection; RFC 9111 §5.2.2.5',
    statement: 'Responses to authenticated requests and error responses carry Cache-Control: no-store.',
    needs: [],
  },
  {
    id: 'CACHE-SERVED-NOT-SHARED',
    level: 'HTTP',
    source: 'RFC 9111 §3.5, §5.2.2.5, §5.2.2.7, §4.1',
    statement:
      'A 200 answer with data carries Cache-Control: no-store or private, or Vary: Authorization (or Vary: *), so that no shared cache gives it to a request with other credentials.',
    needs: ['credentials.fullAccess'],
  },
  {
    id: 'VERSION-PATH',
    level: 'MUST',
    source: 'spec §9; §4 base_url',
    statement:
      'The version is in the path: the base URL ends in /v1, and GET {base_url}/customers answers as the API (an authentication error or data, whatever its body), not as a missing resource (404 or 410).',
    needs: [],
  },
] as const satisfies readonly Rule[];

export type RuleId = (typeof RULES)[number]['id'];

const RULES_BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((rule) => [rule.id, rule]));

export function ruleById(id: RuleId): Rule {
  const rule = RULES_BY_ID.get(id);
  if (!rule) throw new Error(`No rule ${id} in the catalog.`);
  return rule;
}
