// Where the spec leaves a choice open, the independent implementation can make either one, so
// that the tests can show the suite accepts every correct deployment, not just one. The defaults
// are this implementation's own picks; each alternative is as correct (or, where marked, only an
// advisory deviation the suite warns about).

import type { PagedList, PagedListDefect } from './customer-pages.ts';
import type { PagingForm } from './paging-forms.ts';
import type { CookieChoice } from './cookies.ts';

export interface ServerChoices {
  /** A key with another scheme or none: spec §7 fits either code (the header is there, the key is not). */
  otherSchemeCode: 'invalid_api_key' | 'missing_authorization_header';
  /**
   * Two Authorization headers: 400 with an error of its own, 401 like an invalid key, or 403 as a
   * WAF before the app refuses them (the spec names no status for any error).
   */
  duplicateAuthorization: 'bad-request' | 'invalid-key' | 'forbidden';
  /**
   * `Bearer` syntax: exactly one space and one token68 (RFC 6750 §2.1), or the lenient parser of
   * many frameworks — any whitespace, the first token counts, parameters ignored (an HTTP-level
   * deviation: the key is still there whole).
   */
  bearerSyntax: 'strict' | 'lenient';
  /** `bearer` and `BEARER` accepted (RFC 9110 §11.1); false: only `Bearer` (advisory deviation). */
  schemeCaseInsensitive: boolean;
  /** Another tenant's valid key: like an unknown key, or 403 (a distinguishable answer, advisory). */
  crossTenantKey: 'invalid_api_key' | 'insufficient_permissions';
  /** A well-formed host of no tenant: like a tenant without keys, or 404. */
  unknownTenant: 'as-unknown-key' | 'not-found';
  /** Spec §5 Scheme 3 ("Requests have the header Content-Type: application/json"), enforced before auth. */
  requireJsonContentType: boolean;
  /** 421 when the TLS SNI names another host than Host; false: route by Host alone (nginx's default). */
  sniMustMatchHost: boolean;
  /**
   * The certificate: one for `*.api.{domain}`, or one naming each tenant host (a host of no
   * tenant then fails the TLS name check: it is served nothing at all), or one certificate per
   * tenant host chosen by the TLS SNI with no default certificate (a handshake without SNI, or
   * for a name of no tenant, fails: nothing is served there either).
   */
  certificate: 'wildcard' | 'tenant-names' | 'per-host-by-sni';
  /**
   * `GET /customers` (customer-pages.ts): the whole list; pages of one customer with `has_more`
   * and a `next` link (a cursor), every answer then sent chunked (Transfer-Encoding: chunked, no
   * Content-Length); pages (of 50 with `longLists`) whose next is named by a
   * `Link: <…?page=N>; rel="next"` header (`paged-link`, the default) or by `next_cursor` and
   * `has_more` (`paged-cursor`). `paged-link-global-from-page-3` and `paged-cursor-trusted` are defects, not
   * choices (defects.test.ts): from page 3 on the tenant filter is forgotten; a cursor carrying its
   * tenant and environment is believed on any tenant's host.
   */
  customerList: 'whole' | PagedList | PagedListDefect | PagingForm;
  /**
   * A defect, not a choice (paging-forms.ts): every page of a `PagingForm` list but the first also
   * holds the other tenant's first customer.
   */
  pagedLeakFromPage2: boolean;
  /**
   * A defect, not a choice: on a TLS connection whose ALPN agreed `http/1.1` (curl --http1.1,
   * Python's requests, Go without HTTP/2), another tenant's key is served its own tenant's data on
   * this tenant's host; connections without ALPN, or with h2, are checked as they should be.
   */
  crossTenantOverAlpnHttp11: boolean;
  /**
   * A defect, not a choice: a cloaking front that checks keys only for requests whose User-Agent
   * is the suite's old one (`tenant-auth-conformance`); every other client without a key is served
   * the host's tenant's customers, as if with its full-access key.
   */
  servesKeylessToOtherAgents: boolean;
  /** The live lists hold 300 customers, paged 50 a page (`paged-link`, `paged-cursor`); else two, one a page. */
  longLists: boolean;
  /**
   * Plain HTTP: nothing listens (refused), or a listener of its own answers every request 403, or
   * (`h2c-switch-then-403`, h2c-plain-port.ts) Apache's shape with h2c enabled: `Upgrade: h2c` is
   * switched (101) and answered 403 over HTTP/2, prior knowledge answered 403 over HTTP/2.
   * `trusts-forwarded-proto` is a defect, not a choice (defects.test.ts): the plain listener runs
   * the API written for a TLS-terminating proxy, and serves a request whose X-Forwarded-Proto says https.
   * `serves-h2c` is a defect too: the plain port is an HTTP/2-only backend (h2c, prior knowledge)
   * that takes every request for one a TLS front passed on, as it would be behind that front.
   */
  plainHttp:
    'not-listening' | 'answers-403' | 'h2c-switch-then-403' | 'trusts-forwarded-proto' | 'serves-h2c';
  /**
   * What keeps a served answer out of shared caches: `no-store` on every answer, or, on 200s,
   * `Cache-Control: max-age=60` with `Vary: Authorization` (RFC 9111 §4.1: correct, but only an
   * advisory deviation, since the answer may be kept by the client's own cache).
   */
  servedCaching: 'no-store' | 'vary-authorization';
  /**
   * Validators (validators.ts): none, or an ETag per tenant, environment and body on every 200, and
   * If-None-Match answered 304 — only after the key is checked.
   */
  validators: 'none' | 'per-tenant-etag';
  /**
   * HTTP/2 besides HTTP/1.1, chosen by ALPN on the one HTTPS listener. With `true` a `host`
   * field naming another host than the `:authority` leaves the request without a tenant (RFC 9113
   * §8.3.1: malformed); `authority-only` reads the `:authority` alone and serves it (an HTTP-level
   * deviation, still CONFORMANT under the default profile). `reads-host-field` is a defect, not a
   * choice (http2.test.ts): over HTTP/2 the app looks for a `host` field, which HTTP/2 clients
   * leave out (the host is `:authority`), so no HTTP/2 request finds its tenant.
   */
  http2: boolean | 'authority-only' | 'reads-host-field';
  /**
   * With HTTP/2 on: HTTP/1.1 on the same port too (`allowHTTP1`), or HTTP/2 alone — Node's
   * `http2.createSecureServer` defaults, as gRPC-style gateways have it: ALPN offers `h2` only, and
   * a client that offers only `http/1.1` gets no handshake (no_application_protocol).
   */
  http1: boolean;
  /**
   * With HTTP/2 on: every Nth stream reset with REFUSED_STREAM before any processing, as a front
   * at its concurrent-stream limit does (RFC 9113 §8.7: not processed, safe to send again); 0: none.
   */
  refuseStreamEvery: number;
  /**
   * With HTTP/2 on: every Nth connection is drained at its first stream, which is not processed —
   * a GOAWAY with NO_ERROR whose last stream id is below it, then the connection closed — as a
   * front being reloaded or scaled in does; 0: none.
   */
  drainConnectionEvery: number;
  /**
   * Cookies on answers (cookies.ts): none; a load balancer's sticky-session cookies (`AWSALB`,
   * `AWSALBCORS`) on every answer, a correct shape. `session` is a defect, not a choice
   * (defects.test.ts): a request served by a key gets a session cookie for every tenant's host,
   * and a request carrying it without Authorization is served as that key, on any host.
   */
  cookies: CookieChoice;
  /**
   * Error answers: the spec's JSON body, or `html` — a defect, not a choice (bench/failing-run.ts):
   * the same status and headers with an HTML page for a body (`text/html`), as a framework's
   * default error pages give. Every rule that reads an error's code fails.
   */
  errorBodies: 'json' | 'html';
}

export const DEFAULT_CHOICES: ServerChoices = {
  otherSchemeCode: 'invalid_api_key',
  duplicateAuthorization: 'bad-request',
  bearerSyntax: 'strict',
  schemeCaseInsensitive: true,
  crossTenantKey: 'invalid_api_key',
  unknownTenant: 'as-unknown-key',
  requireJsonContentType: false,
  sniMustMatchHost: true,
  certificate: 'wildcard',
  customerList: 'paged-link',
  longLists: false,
  pagedLeakFromPage2: false,
  crossTenantOverAlpnHttp11: false,
  servesKeylessToOtherAgents: false,
  plainHttp: 'not-listening',
  servedCaching: 'no-store',
  validators: 'none',
  http2: false,
  http1: true,
  refuseStreamEvery: 0,
  drainConnectionEvery: 0,
  cookies: 'none',
  errorBodies: 'json',
};
