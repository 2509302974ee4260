/* Generated from schemas/journal.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

/**
 * What the reference server recorded of the requests its clients sent (GET /v1/journal of the admin API), oldest first. Facts only, redacted like the access log: a key is named by its id, or as an unknown key with a fingerprint that cannot be reversed; never a key value.
 */
export interface Journal {
  object: 'journal';
  /**
   * Every journal of the server (one per tenant, and `(none)` for requests that named no served tenant), with how many entries it holds and how many older ones were dropped to stay within its bound.
   */
  tenants: JournalTenant[];
  data: JournalEntry[];
}
export interface JournalTenant {
  tenant: string;
  entries: number;
  dropped: number;
  capacity: number;
}
export interface JournalEntry {
  time: string;
  /**
   * tls: a TLS connection opened without SNI, recorded once, before any request on it.
   */
  transport: 'https' | 'http' | 'tls';
  /**
   * The request's HTTP version: h1 for HTTP/1.x, h2 for HTTP/2 (negotiated by ALPN). Absent for a bare TLS connection.
   */
  protocol?: 'h1' | 'h2';
  /**
   * The tenant the request's host names (a served tenant only).
   */
  tenant?: string;
  environment?: 'production' | 'sandbox';
  /**
   * tenant: a tenant API host; ip-literal: an IP address; other: any other name; missing: no single Host.
   */
  host: 'tenant' | 'ip-literal' | 'other' | 'missing';
  /**
   * Whether the TLS SNI named the request's host; not-applicable on plain HTTP.
   */
  sni: 'match' | 'mismatch' | 'missing' | 'not-applicable';
  /**
   * On an SNI mismatch: the name the TLS SNI carried, or "(not a host name)" when it was none.
   */
  sniName?: string;
  /**
   * On an SNI mismatch: the host the request named (its Host header, or :authority over HTTP/2), without the port, or "(not a host name)"; absent when it named none or several.
   */
  hostName?: string;
  method?: string;
  /**
   * Without the query; a segment that could carry a key is [redacted].
   */
  path?: string;
  /**
   * The answer's status; 0 when no answer was written (cut).
   */
  status?: number;
  errorCode?: string;
  userAgent?: string;
  /**
   * duplicate: more than one Authorization field; folded: one field holding several Bearer credentials joined by commas (Bearer K, Bearer K), as a client or proxy joins two values.
   */
  authorization:
    | 'bearer'
    | 'missing'
    | 'other-scheme'
    | 'quoted'
    | 'malformed'
    | 'duplicate'
    | 'folded'
    | 'not-applicable';
  /**
   * The key id of the key presented (in the header, or in the URL), or "unknown key".
   */
  key?: string;
  /**
   * For an unknown key: a truncated SHA-256 keyed with a secret of the server process, the same for the same key within one process; it cannot be reversed.
   */
  keyFingerprint?: string;
  keyEnvironment?: 'production' | 'sandbox';
  /**
   * The key was revoked when it was presented.
   */
  keyRevoked?: boolean;
  contentType: 'json' | 'other' | 'missing';
  accept: 'json' | 'other' | 'missing';
  hasBody: boolean;
  /**
   * Where the URL carried a credential: query:NAME, path or userinfo.
   */
  urlCredentials?: string[];
  /**
   * Tenant id fields the request carried: header:NAME, query:NAME or body:NAME.
   */
  tenantFields?: string[];
  /**
   * On a 429 or 503 answer with Retry-After in seconds: those seconds.
   */
  retryAfter?: number;
  /**
   * The request carried an Idempotency-Key header (its value is not kept).
   */
  idempotencyKey?: boolean;
  /**
   * The name of the behaviour of a client's test that answered the request (POST /v1/behaviours of the admin API), or that changed its key after it.
   */
  behaviour?: string;
  /**
   * A behaviour ended the request without an answer (status 0): the connection reset, an HTTP/2 GOAWAY, or the stream reset.
   */
  cut?: 'reset' | 'goaway' | 'rst-stream';
  /**
   * With cut: the server said it did not process the request (a GOAWAY below its stream, REFUSED_STREAM), so that a retry is safe (RFC 9113 §8.7).
   */
  refused?: boolean;
}
