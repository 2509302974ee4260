// The client rule catalog: what the spec asks of the clients that call the API (spec §5 Scheme,
// Tenant identification, Environments, Handling rules for clients), as data, in the same form as
// the server catalog (rules.ts). The reference server's journal records what clients send; the
// client report (client-report/) judges it by these rules. An id never changes meaning once
// published (tests/conformance/catalog/client-rule-ids.snapshot.json holds the list).
//   MUST: a sentence of the spec; a client that breaks it is not conformant.
//   ADVISORY: security practice the spec recommends; it warns and never fails a client.

export type ClientLevel = 'MUST' | 'ADVISORY';

export interface ClientRule {
  id: `CLIENT-${string}`;
  level: ClientLevel;
  /** Where in the spec (or which standard) the rule comes from. */
  source: string;
  statement: string;
}

export const CLIENT_RULES = [
  {
    id: 'CLIENT-AUTH-HEADER',
    level: 'MUST',
    source: 'spec §1; §5 Scheme 1',
    statement: 'Every request carries an Authorization header.',
  },
  {
    id: 'CLIENT-AUTH-BEARER',
    level: 'MUST',
    source: 'spec §5 Scheme 1',
    statement:
      'The key is sent with the Bearer scheme, never another scheme (Basic, Token) or as a bare value.',
  },
  {
    id: 'CLIENT-AUTH-NO-QUOTES',
    level: 'MUST',
    source: 'spec §5 Scheme 2',
    statement: 'The key is sent without added quotation marks: Authorization: Bearer <key>.',
  },
  {
    id: 'CLIENT-AUTH-WELL-FORMED',
    level: 'MUST',
    source: 'spec §5 Scheme 1; RFC 6750 §2.1',
    statement:
      'The request has exactly one Authorization header, "Bearer", one space and the key, with nothing else (no tab, no parameters).',
  },
  {
    id: 'CLIENT-KEY-NOT-IN-URL',
    level: 'MUST',
    source: 'spec §5 Scheme 5',
    statement: 'No credential is put in the URL: not in a query parameter, a path segment or userinfo.',
  },
  {
    id: 'CLIENT-HTTPS-ONLY',
    level: 'MUST',
    source: 'spec §5 Scheme 4; §5 Handling rules for clients',
    statement:
      'Every request uses HTTPS. A key sent over plain HTTP is exposed: revoke and replace it (rotate).',
  },
  {
    id: 'CLIENT-TLS-SNI',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1; RFC 6066 §3',
    statement:
      'The TLS connection names the tenant host in SNI, the same host as the Host header (:authority over HTTP/2).',
  },
  {
    id: 'CLIENT-TENANT-HOST',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1; §4 base_url',
    statement:
      "Requests go to the tenant's own host, https://{tenant}.api.{domain}/v1 (or its sandbox host), never to an IP address or another name.",
  },
  {
    id: 'CLIENT-NO-TENANT-FIELDS',
    level: 'MUST',
    source: 'spec §5 Tenant identification 3',
    statement:
      'No tenant_id, company_id or organization_id is sent, neither as a header in any spelling (X-Tenant-Id, x_company_id, Organization-Id…) nor in the query or a JSON body.',
  },
  {
    id: 'CLIENT-CONTENT-TYPE-JSON',
    level: 'MUST',
    source: 'spec §5 Scheme 3',
    statement: 'A request with a body has Content-Type: application/json.',
  },
  {
    id: 'CLIENT-ACCEPT-JSON',
    level: 'ADVISORY',
    source: 'spec §5 Scheme 3 (read examples)',
    statement: 'A read (GET, HEAD) sends Accept: application/json, as the spec’s read examples do.',
  },
  {
    id: 'CLIENT-KEY-KNOWN',
    level: 'MUST',
    source: 'spec §5 Tenant identification 2; §7 invalid_api_key',
    statement:
      "The key presented is a key of the host's tenant: not an unknown key, a mistyped one or another tenant's.",
  },
  {
    id: 'CLIENT-KEY-ENVIRONMENT',
    level: 'MUST',
    source: 'spec §5 Environments; §5 Handling rules for clients',
    statement:
      'Sandbox (development) keys are used only on sandbox hosts and production keys only on production hosts.',
  },
  {
    id: 'CLIENT-KEY-NOT-REVOKED',
    level: 'MUST',
    source: 'spec §5 Handling rules for clients; §7 invalid_api_key',
    statement:
      'A revoked key is no longer used: the client was moved to its replacement. The one request that finds a key revoked while the client runs (it was accepted before) is not counted; any after it is.',
  },
  {
    id: 'CLIENT-STOPS-ON-INVALID-KEY',
    level: 'ADVISORY',
    source: 'spec §7 invalid_api_key; OWASP API Top 10 2023 API4',
    statement:
      'After an invalid_api_key answer, the client does not keep sending the same key: at most one more request with it.',
  },
  {
    id: 'CLIENT-HONOURS-RETRY-AFTER',
    level: 'ADVISORY',
    source: 'RFC 9110 §10.2.3; RFC 6585 §4',
    statement:
      'After a 429 or 503 answer with Retry-After, the client does not send the same request (method and path) again before that many seconds have passed.',
  },
  {
    id: 'CLIENT-NO-UNSAFE-RETRY',
    level: 'ADVISORY',
    source: 'RFC 9110 §9.2.2; RFC 9113 §8.7',
    statement:
      'A request that is not idempotent (POST, PATCH) left without an answer (connection reset, GOAWAY, stream reset) is sent again only with an Idempotency-Key on both, or when the server said it did not process it (REFUSED_STREAM, a GOAWAY below its stream).',
  },
  {
    id: 'CLIENT-LEAST-PRIVILEGE',
    level: 'ADVISORY',
    source: 'spec §5 Handling rules for clients; OWASP API Top 10 2023 API5',
    statement:
      'The key has the least permissions needed: a Full Access key only used to read should be a Read Only key, and a custom key has no permission it never used.',
  },
] as const satisfies readonly ClientRule[];

export type ClientRuleId = (typeof CLIENT_RULES)[number]['id'];
