// Tenant isolation (spec §1, §5 Tenant identification): the faults that break these rules (see ../fault.ts).
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { RuleId } from '../../conformance/catalog/rules.ts';
import type { ApiResponse } from '../../reference-server/http/errors.ts';
import type { ServerSteps } from '../../reference-server/steps/server-steps.ts';
import { fieldLines, requestHostname } from '../../reference-server/http/field-lines.ts';
import { hostnameOf, resolveApiHost } from '../../reference-server/http/hosts.ts';
import { cursorParameter, readCursor } from '../../reference-server/api/customer-pages.ts';
import {
  ANY_ORIGIN,
  changingAnswers,
  CORRECT,
  customersOf,
  headerValue,
  inAnyTenant,
  overHttp2,
  servingCustomers,
  type Fault,
} from '../fault.ts';

/** Over HTTP/2 the :authority alone names the host, a host field beside it unread. */
function authorityOnlyOverHttp2(req: IncomingMessage): string[] {
  return overHttp2(req) ? fieldLines(req, ':authority') : CORRECT.hostsOf(req);
}

/**
 * The rules whose refused request goes to exactly {base_url}/customers: behind a cache that
 * ignores Authorization they get the 200 stored when the suite learned the tenants' data. Not
 * ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED: nothing is served on the sandbox URL before it (the
 * campaign runs a variant's rules in one worker, in the order of specs/environments.spec.ts,
 * where it comes before ENV-SANDBOX-KEY-SERVED).
 */
const REFUSED_ON_THE_CACHED_URL: readonly RuleId[] = [
  'AUTH-MISSING-HEADER',
  'AUTH-MISSING-HEADER-401',
  'AUTH-OTHER-SCHEME-REJECTED',
  'AUTH-QUOTED-KEY-REJECTED',
  'AUTH-MALFORMED-BEARER-REJECTED',
  'AUTH-BEARER-SYNTAX-REJECTED',
  'AUTH-DUPLICATE-HEADER-REJECTED',
  'AUTH-H2-DUPLICATE-AUTHORIZATION-REJECTED',
  'KEY-UNKNOWN-REJECTED',
  'KEY-ALTERED-REJECTED',
  'KEY-REVOKED-REJECTED',
  'KEY-INVALID-401',
  'TENANT-CROSS-KEY-REJECTED',
  'TENANT-H2-COALESCED-CONNECTION-ISOLATED',
  'ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED',
  'PERM-INSUFFICIENT-REJECTED',
  'PERM-INSUFFICIENT-403',
];

/**
 * The rules that send a request without Authorization to exactly {base_url}/customers and ask
 * something else of its answer: behind that cache it is the 200 with data, and a keyless request
 * that gets data fails whatever rule sent it (check.noDataWithoutKey).
 */
const KEYLESS_ON_THE_CACHED_URL: readonly RuleId[] = [
  'TRANSPORT-HSTS',
  'ERROR-BODY-SHAPE',
  'ERROR-NO-STORE',
  'VERSION-PATH',
];

/** Distinct URLs a cache keeps at most: the suite asks for a handful. */
const CACHE_ENTRIES = 1000;

/**
 * A writer with the response cache of an app that caches before it authenticates: each 200 of a
 * GET is stored under host name and URL, and a later GET of that host and URL which the API
 * refuses (401, 403) is given the stored answer instead. The host checks (421) still come first.
 */
function cachingByHostAndUrl(): ServerSteps['writeResponse'] {
  const stored = new Map<string, ApiResponse>();
  return (res, response, transport) => {
    const req = res.req;
    if (req.method !== 'GET') return CORRECT.writeResponse(res, response, transport);
    const key = `${requestHostname(req) ?? ''} ${req.url ?? ''}`;
    if (response.status === 200 && stored.size < CACHE_ENTRIES) stored.set(key, response);
    const refused = response.status === 401 || response.status === 403;
    CORRECT.writeResponse(res, (refused && stored.get(key)) || response, transport);
  };
}

/** Customers of the API host the header `name` gives (when it names one), as a trusting app serves them. */
function servingTenantOfHostHeader(name: string): ReturnType<typeof servingCustomers> {
  return servingCustomers((req, host, context) => {
    const value = headerValue(req, name);
    const named = value === undefined ? undefined : resolveApiHost(hostnameOf(value), context.domain);
    return customersOf(context, named ?? host);
  });
}

/**
 * The list route with every later page (a request `isLaterPage` says is one) also holding the
 * first customer of the next tenant of the fixtures; `reshape` then changes each served page.
 */
function leakingLaterPages(
  isLaterPage: (req: IncomingMessage) => boolean,
  reshape: (answer: ApiResponse) => ApiResponse = (answer) => answer,
): Partial<ServerSteps> {
  return {
    findRoute: (path) => {
      const route = CORRECT.findRoute(path);
      return (
        route && {
          ...route,
          handle: (req, host, context) => {
            const later = isLaterPage(req);
            const answer = route.handle(req, host, context);
            // Only a list of customers is changed; any other answer goes as the reference wrote it.
            if (answer.status !== 200 || !Array.isArray((answer.body as { data?: unknown }).data))
              return answer;
            const tenants = context.data.tenantIds;
            const next = tenants[(tenants.indexOf(host.tenant) + 1) % tenants.length] ?? host.tenant;
            const leaked =
              !later || next === host.tenant ? [] : customersOf(context, { ...host, tenant: next });
            const page = answer.body as { data: readonly unknown[] };
            return reshape({ ...answer, body: { ...page, data: [...page.data, ...leaked.slice(0, 1)] } });
          },
        }
      );
    },
  };
}

export const TENANT_ISOLATION_FAULTS = {
  'key-lookup-ignores-tenant': {
    description: "Keys are looked up in every tenant, not only the host's: another tenant's key is served.",
    catches: ['TENANT-CROSS-KEY-REJECTED'],
    alsoFails: {
      'TENANT-CROSS-KEY-INDISTINGUISHABLE': "Another tenant's key gets 200, an unknown key 401.",
      'TENANT-UNKNOWN-HOST-REJECTED':
        'A valid key on the host of a tenant that does not exist is served (an empty list).',
      'TENANT-CACHED-ANSWER-NOT-SHARED':
        "Its request with the other tenant's key is served this tenant's customers (fresh, not cached: the rule judges the data).",
    },
    steps: () => ({
      findKey: (context, host, token) => inAnyTenant(context, host, token),
    }),
  },
  'second-pod-serves-foreign-key': {
    description:
      "Two pods behind a balancer, one of which looks keys up in every tenant: the ninth request of the run with another tenant's key on an existing tenant's host lands on it and is served. In a run that request is TENANT-CROSS-KEY-INDISTINGUISHABLE's (ADVISORY) probe, the MUST's own probes being the first eight (four on a connection offering no ALPN, then four offering http/1.1: without a validator, with If-None-Match and either tenant's ETag, with If-Modified-Since): only the run's checker sees the cross-tenant read.",
    catches: ['TENANT-CROSS-KEY-REJECTED'],
    alsoFails: {
      'TENANT-CROSS-KEY-INDISTINGUISHABLE':
        "Another tenant's key gets 200 (from the second pod), an unknown key 401.",
    },
    steps: () => {
      let foreign = 0;
      return {
        findKey: (context, host, token) => {
          const own = CORRECT.findKey(context, host, token);
          if (own || !context.data.tenantIds.includes(host.tenant)) return own;
          const elsewhere = inAnyTenant(context, host, token);
          if (elsewhere) foreign += 1;
          return foreign === 9 ? elsewhere : undefined;
        },
      };
    },
  },
  'key-lookup-ignores-tenant-over-alpn-http11': {
    description:
      "On a TLS connection whose ALPN agreed http/1.1, keys are looked up in every tenant (a front's http/1.1 route to an older backend); without ALPN, and over HTTP/2, only in the host's.",
    catches: ['TENANT-CROSS-KEY-REJECTED'],
    alsoFails: {
      'TENANT-UNKNOWN-HOST-REJECTED':
        'Over ALPN http/1.1, a valid key on the host of a tenant that does not exist is served (an empty list).',
      'TENANT-CACHED-ANSWER-NOT-SHARED':
        "Over ALPN http/1.1, its request with the other tenant's key is served (fresh, not cached: the rule judges the data).",
    },
    steps: () => {
      // The steps of one request run in one turn (authorization, then the key lookup), so the
      // connection of the request read last is the one whose key is looked up.
      let alpnHttp11 = false;
      return {
        authorizationOf: (req) => {
          alpnHttp11 = !overHttp2(req) && (req.socket as TLSSocket).alpnProtocol === 'http/1.1';
          return CORRECT.authorizationOf(req);
        },
        findKey: (context, host, token) =>
          alpnHttp11 ? inAnyTenant(context, host, token) : CORRECT.findKey(context, host, token),
      };
    },
  },
  'other-tenant-key-answered-403': {
    description:
      "Another tenant's key gets 403 insufficient_permissions, an unknown key 401: an oracle for valid keys.",
    catches: ['TENANT-CROSS-KEY-INDISTINGUISHABLE'],
    steps: () => ({
      findKey: (context, host, token) => {
        const own = CORRECT.findKey(context, host, token);
        const foreign = own ? undefined : inAnyTenant(context, host, token);
        return foreign ? { ...foreign, permissions: new Set() } : own;
      },
    }),
  },
  'unknown-tenant-served-as-default': {
    description: 'The host of a tenant that does not exist is served as the first tenant of the fixtures.',
    catches: ['TENANT-UNKNOWN-HOST-REJECTED'],
    steps: () => ({
      tenantOf: (req, hostname, context) => {
        const host = CORRECT.tenantOf(req, hostname, context);
        const fallback = context.data.tenantIds[0];
        if (!host || !fallback || context.data.tenantIds.includes(host.tenant)) return host;
        return { ...host, tenant: fallback };
      },
    }),
  },
  'data-tenant-from-x-tenant-id': {
    description:
      "The key is checked in the host's tenant, but the customers are those of the X-Tenant-Id header.",
    catches: ['TENANT-FORWARDED-HOST-IGNORED'],
    steps: () =>
      servingCustomers((req, host, context) =>
        customersOf(context, { ...host, tenant: headerValue(req, 'x-tenant-id') ?? host.tenant }),
      ),
  },
  'data-tenant-from-x-forwarded-host': {
    description: "The key is checked in the host's tenant, but the customers are those of X-Forwarded-Host.",
    catches: ['TENANT-FORWARDED-HOST-IGNORED'],
    steps: () => servingTenantOfHostHeader('x-forwarded-host'),
  },
  'data-tenant-from-x-original-host': {
    description:
      "The key is checked in the host's tenant, but the customers are those of X-Original-Host (the header Azure Application Gateway and IIS ARR set, which ASP.NET apps read).",
    catches: ['TENANT-FORWARDED-HOST-IGNORED'],
    steps: () => servingTenantOfHostHeader('x-original-host'),
  },
  'data-tenant-from-tenant-id-field': {
    description:
      "The key is checked in the host's tenant, but the customers are those named by tenant_id (header or query).",
    catches: ['TENANT-ID-FIELDS-IGNORED'],
    steps: () =>
      servingCustomers((req, host, context) => {
        const named =
          headerValue(req, 'tenant_id') ??
          new URL(req.url ?? '/', ANY_ORIGIN).searchParams.get('tenant_id') ??
          host.tenant;
        return customersOf(context, { ...host, tenant: named });
      }),
  },
  'sni-host-mismatch-served': {
    description:
      'The Host header is served whatever the TLS SNI of the connection named (as a front that routes by Host does): each key still gets only its own tenant, so only the 421 advice is broken.',
    catches: ['TENANT-SNI-HOST-MISMATCH-421'],
    steps: () => ({ sniMatches: () => true }),
  },
  'sni-authenticates-host-serves': {
    description:
      "The key is checked in the tenant the TLS SNI names, but the customers are those of the Host header's tenant.",
    catches: ['TENANT-SNI-HOST-MISMATCH-NO-DATA'],
    alsoFails: {
      'TENANT-SNI-HOST-MISMATCH-421': 'An SNI/Host mismatch is not refused: it is authenticated and served.',
      'TENANT-H2-COALESCED-CONNECTION-ISOLATED':
        "On a connection opened for this tenant, this tenant's key gets the other tenant's data when the :authority names it.",
    },
    steps: () => ({
      sniMatches: () => true,
      tenantOf: (req, hostname, context) =>
        CORRECT.tenantOf(req, (req.socket as TLSSocket).servername || hostname, context),
      ...servingCustomers((req, host, context) => {
        const hostTenant = resolveApiHost(requestHostname(req) ?? '', context.domain);
        return customersOf(context, hostTenant ?? host);
      }),
    }),
  },
  'h2-host-field-ignored': {
    description:
      'Over HTTP/2 only the :authority names the host: a host field naming another tenant beside it is ignored, and the request served as the :authority says.',
    catches: ['TENANT-H2-AUTHORITY-HOST-CONFLICT-REJECTED'],
    steps: () => ({ hostsOf: authorityOnlyOverHttp2 }),
  },
  'h2-authority-authenticates-host-serves': {
    description:
      "Over HTTP/2 the key is checked in the tenant the :authority names, but the customers are those of the host field's tenant (as when a front routes on one and the app reads the other).",
    catches: ['TENANT-H2-AUTHORITY-HOST-CONFLICT-NO-DATA'],
    alsoFails: {
      'TENANT-H2-AUTHORITY-HOST-CONFLICT-REJECTED': 'The conflicting request is served, not rejected.',
    },
    steps: () => ({
      hostsOf: authorityOnlyOverHttp2,
      ...servingCustomers((req, host, context) => {
        const [hostField] = overHttp2(req) ? fieldLines(req, 'host') : [];
        const named =
          hostField === undefined ? undefined : resolveApiHost(hostnameOf(hostField), context.domain);
        return customersOf(context, named ?? host);
      }),
    }),
  },
  'sni-host-mismatch-answered-403': {
    description: 'An SNI/Host mismatch is refused, but with 403 instead of 421 Misdirected Request.',
    catches: ['TENANT-SNI-HOST-MISMATCH-421'],
    steps: () => ({
      writeResponse: changingAnswers('misdirected_request', { status: 403 }),
    }),
  },
  'other-tenant-customer-leaked': {
    description:
      "Each tenant's customer list also holds the first customer of the next tenant of the fixtures.",
    catches: ['TENANT-OWN-DATA-ONLY'],
    steps: () =>
      servingCustomers((_req, host, context) => {
        const tenants = context.data.tenantIds;
        const next = tenants[(tenants.indexOf(host.tenant) + 1) % tenants.length] ?? host.tenant;
        const leaked = next === host.tenant ? [] : customersOf(context, { ...host, tenant: next });
        return [...customersOf(context, host), ...leaked.slice(0, 1)];
      }),
  },
  'page-cursor-tenant-trusted': {
    description:
      "A list cursor names the tenant, environment and offset it was issued for, and is believed: another tenant's cursor on this tenant's host, with this tenant's key, pages through the other tenant's customers.",
    catches: ['TENANT-OTHER-PAGE-CURSOR-NO-DATA'],
    steps: () => ({ cursorPosition: (cursor) => readCursor(cursor) }),
  },
  'other-tenant-customer-leaked-after-first-page': {
    description:
      "Each page of a tenant's customer list after the first also holds the first customer of the next tenant of the fixtures; the first page is clean.",
    catches: ['TENANT-OWN-DATA-ONLY'],
    steps: () => leakingLaterPages((req) => cursorParameter(req) !== undefined),
  },
  'other-tenant-customer-leaked-past-a-next-page-token': {
    description:
      "The customer list names its next page by a `nextPageToken` in the body (sent back as `?pageToken=`, Google's form), no Link header; each page after the first also holds the first customer of the next tenant of the fixtures.",
    catches: ['TENANT-OWN-DATA-ONLY'],
    steps: () =>
      leakingLaterPages(
        (req) => {
          // The token is the reference's own cursor, handed to it where the reference reads it.
          const target = new URL(req.url ?? '/', ANY_ORIGIN);
          const token = target.searchParams.get('pageToken');
          if (token === null) return false;
          target.searchParams.delete('pageToken');
          target.searchParams.set('cursor', token);
          req.url = `${target.pathname}${target.search}`;
          return true;
        },
        (answer) => {
          const { Link: link, ...headers } = answer.headers;
          const next = /[?&]cursor=([^>&]+)>/.exec(String(link ?? ''))?.[1];
          const page = { ...(answer.body as { data: readonly unknown[]; has_more?: boolean }) };
          // Google's form says no has_more: the token alone names the next page.
          delete page.has_more;
          return {
            ...answer,
            headers,
            body: { ...page, ...(next === undefined ? {} : { nextPageToken: next }) },
          };
        },
      ),
  },
  'customers-cached-by-host-and-url': {
    description:
      'A response cache between the host checks and authentication, keyed on host name and URL (Authorization ignored): a GET that would be refused (401, 403) gets the 200 last served for that URL.',
    catches: ['TENANT-CACHED-ANSWER-NOT-SHARED'],
    alsoFails: Object.fromEntries<string>([
      ...REFUSED_ON_THE_CACHED_URL.map((id): [RuleId, string] => [
        id,
        'Its request to {base_url}/customers comes after a served one (the suite learns the tenants first) and gets the cached 200 with data.',
      ]),
      ...KEYLESS_ON_THE_CACHED_URL.map((id): [RuleId, string] => [
        id,
        'Its request without Authorization to {base_url}/customers gets the cached 200 with data: a keyless request that gets data fails whatever rule sent it.',
      ]),
      [
        'TENANT-CONDITIONAL-UNKNOWN-INDISTINGUISHABLE',
        "Its keyless request sending back the tenant's ETag gets the cached 200 on the tenant's host and 401 on a host of no tenant (nothing cached there): the answer tells which tenants exist.",
      ],
    ]),
    steps: () => ({ writeResponse: cachingByHostAndUrl() }),
  },
  'all-tenants-customers-served': {
    description: 'The customer query has no tenant filter: every tenant gets the customers of all tenants.',
    catches: ['TENANT-OWN-DATA-ONLY'],
    steps: () =>
      servingCustomers((_req, host, context) =>
        context.data.tenantIds.flatMap((tenant) => customersOf(context, { ...host, tenant })),
      ),
  },
} satisfies Record<string, Fault>;
