// Named faults of the reference server, for one purpose: proving that the conformance suite can
// fail. Each fault swaps one step of steps.ts for a faulty variant that breaks the rule(s) it
// `catches`; tests/mutation runs the suite against every variant and checks that exactly those
// rules, and the listed `alsoFails`, fail. A fault is off unless asked for by name —
// `--fault NAME` on the command line or `startReferenceServer({ fault })`, never from the
// environment — so that a faulty server cannot be started by accident.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { RuleId } from '../conformance/rules.ts';
import type { ApiKey, Fixtures, Permission } from '../schemas/generated/fixtures.ts';
import { ALL_PERMISSIONS, KEY_PREFIX_BY_ENVIRONMENT, permissionsOf, type StoredKey } from './api-keys.ts';
import { parseAuthorization } from './authorization-header.ts';
import { errorBody, apiError, type ApiErrorCode, type ApiResponse } from './errors.ts';
import { hostnameOf, resolveApiHost, type ApiHost, type Environment } from './hosts.ts';
import { handleApiRequest } from './request-pipeline.ts';
import { fieldLines, requestHostname } from './field-lines.ts';
import { CORRECT_STEPS as CORRECT, type ServerSteps } from './steps.ts';

export interface Fault {
  /** What the faulty variant does wrong. */
  description: string;
  /** The rules the fault exists for: against the variant each fails (an ADVISORY one warns). */
  catches: readonly RuleId[];
  /** Further rules that fail (or warn) as a direct consequence of the fault, each with why. */
  alsoFails?: Readonly<Partial<Record<RuleId, string>>>;
  /**
   * The suite's preflight stops the run at this stage (verdict SETUP ERROR, no rule runs): the
   * fault is caught there, and `catches` names the rule the preflight's check stands for.
   */
  stopsPreflightAt?: 'TLS';
  /** The faulty step(s). The fixtures give a variant the clear keys the correct server never keeps. */
  steps(fixtures: Fixtures): Partial<ServerSteps>;
}

/** The query parameters a careless server reads a key from (spec §5 Scheme 5 forbids it). */
const URL_KEY_PARAMETERS = ['access_token', 'api_key', 'apikey', 'key', 'token'];
const OTHER_DOMAIN = 'wrong-domain.test';
/** Base of `new URL(req.url, …)`: only the path and query of a request target are read. */
const ANY_ORIGIN = 'https://request-target.invalid';

/** Why a rule fails when /v1/customers answers 404 whatever the request. */
const NOT_FOUND = 'Its request to {base_url}/customers gets 404 not_found.';

const CATALOG = {
  // Transport (spec §5 Scheme 4)
  'certificate-for-another-domain': {
    description: `The HTTPS listener serves a leaf certificate for *.api.${OTHER_DOMAIN}, signed by the right CA.`,
    catches: ['TRANSPORT-HTTPS-CERT'],
    stopsPreflightAt: 'TLS',
    steps: () => ({
      certificates: (certDir) => CORRECT.certificates(certDir, OTHER_DOMAIN),
    }),
  },
  'plain-http-served': {
    description: 'The plain-HTTP listener runs the API like the HTTPS one: a valid key is served over HTTP.',
    catches: ['TRANSPORT-PLAIN-HTTP-KEY-REJECTED'],
    steps: () => ({
      plainHttpAnswer: (req, context) =>
        // A plain connection has no SNI to compare with the host.
        handleApiRequest(
          req,
          requestHostname(req),
          { ...context, steps: { ...context.steps, sniMatches: () => true } },
          {},
        ),
    }),
  },
  'plain-http-answered-200': {
    description: 'Plain HTTP gets the https_required error body, but with status 200.',
    catches: ['TRANSPORT-PLAIN-HTTP-REJECTED'],
    alsoFails: {
      'TRANSPORT-PLAIN-HTTP-KEY-REJECTED': 'A request with a key gets the same 200 as one without.',
    },
    steps: () => ({
      plainHttpAnswer: (req, context) => ({ ...CORRECT.plainHttpAnswer(req, context), status: 200 }),
    }),
  },
  'plain-http-redirected': {
    description: 'Plain HTTP is redirected (301) to the same address over HTTPS.',
    catches: ['TRANSPORT-NO-REDIRECT'],
    alsoFails: {
      'TRANSPORT-PLAIN-HTTP-REJECTED': 'A redirect is not a rejection (refused, reset or an error status).',
      'TRANSPORT-PLAIN-HTTP-KEY-REJECTED':
        'A request with a key is redirected too, which is not a rejection.',
    },
    steps: () => ({
      plainHttpAnswer: (req, context) => ({
        ...CORRECT.plainHttpAnswer(req, context),
        status: 301,
        headers: { Location: `https://${hostnameOf(req.headers.host ?? '')}${req.url ?? '/'}` },
      }),
    }),
  },
  'hsts-disabled': {
    description: 'HTTPS answers carry Strict-Transport-Security: max-age=0.',
    catches: ['TRANSPORT-HSTS'],
    steps: () => ({
      writeResponse: editingHeaders((headers) => ({ ...headers, 'Strict-Transport-Security': 'max-age=0' })),
    }),
  },

  // The Authorization header (spec §5 Scheme, §7)
  'missing-header-answered-invalid-key': {
    description:
      'A request without Authorization gets invalid_api_key instead of missing_authorization_header.',
    catches: ['AUTH-MISSING-HEADER'],
    alsoFails: {
      'AUTH-URL-CREDENTIALS-IGNORED':
        'A key in the URL leaves the request without a header: invalid_api_key too.',
    },
    steps: () => ({
      writeResponse: changingAnswers('missing_authorization_header', apiError('invalid_api_key')),
    }),
  },
  'missing-header-answered-400': {
    description: 'A request without Authorization gets status 400 and no WWW-Authenticate challenge.',
    catches: ['AUTH-MISSING-HEADER-401'],
    steps: () => ({
      writeResponse: changingAnswers('missing_authorization_header', { status: 400, headers: {} }),
    }),
  },
  'no-www-authenticate': {
    description: 'Authentication errors carry no WWW-Authenticate challenge.',
    catches: ['AUTH-MISSING-HEADER-401', 'KEY-INVALID-401'],
    steps: () => ({
      writeResponse: editingHeaders(({ 'WWW-Authenticate': _challenge, ...headers }) => headers),
    }),
  },
  'any-scheme-accepted': {
    description: 'The key is taken from Authorization whatever the scheme (Token, Basic) or without one.',
    catches: ['AUTH-OTHER-SCHEME-REJECTED'],
    steps: () => ({
      authorizationOf: (req) => {
        const parsed = CORRECT.authorizationOf(req);
        if (parsed.kind !== 'not-bearer') return parsed;
        const value = fieldLines(req, 'authorization')[0] ?? '';
        return parseAuthorization([`Bearer ${value.replace(/^\S+ +/, '')}`]);
      },
    }),
  },
  'scheme-case-sensitive': {
    description: 'Only the exact spelling `Bearer` is accepted; `bearer` and `BEARER` are refused.',
    catches: ['AUTH-SCHEME-CASE-INSENSITIVE'],
    steps: () => ({
      authorizationOf: (req) => {
        const parsed = CORRECT.authorizationOf(req);
        const value = fieldLines(req, 'authorization')[0] ?? '';
        return parsed.kind === 'bearer' && !value.startsWith('Bearer ') ? { kind: 'not-bearer' } : parsed;
      },
    }),
  },
  'quotes-stripped': {
    description: 'Quotes around the key (`Bearer "KEY"`, `Bearer \'KEY\'`) are removed before the lookup.',
    catches: ['AUTH-QUOTED-KEY-REJECTED'],
    steps: () => ({
      authorizationOf: (req) =>
        parseAuthorization(
          fieldLines(req, 'authorization').map((value) => value.replace(/^(\S+ +)(["'])(.*)\2$/, '$1$3')),
        ),
    }),
  },
  'lenient-bearer-syntax': {
    description:
      'A tab after Bearer, extra parameters and a second token are tolerated: the first key-like word counts.',
    catches: ['AUTH-MALFORMED-BEARER-REJECTED'],
    steps: () => ({
      authorizationOf: (req) => {
        const parsed = CORRECT.authorizationOf(req);
        if (parsed.kind !== 'malformed') return parsed;
        const token = /^\S+\s+([A-Za-z0-9\-._~+/]+=*)/.exec(fieldLines(req, 'authorization')[0] ?? '')?.[1];
        return token ? { kind: 'bearer', token } : parsed;
      },
    }),
  },
  'second-authorization-header-used': {
    description: 'Of two Authorization headers the last one counts, instead of the request being rejected.',
    catches: ['AUTH-DUPLICATE-HEADER-REJECTED'],
    steps: () => ({
      authorizationOf: (req) => parseAuthorization(fieldLines(req, 'authorization').slice(-1)),
    }),
  },
  'key-accepted-from-url': {
    description: `Without an Authorization header, a key in ?${URL_KEY_PARAMETERS.join('=, ?')}= authenticates.`,
    catches: ['AUTH-URL-CREDENTIALS-IGNORED'],
    steps: () => ({
      authorizationOf: (req) => {
        const parsed = CORRECT.authorizationOf(req);
        if (parsed.kind !== 'missing') return parsed;
        const query = new URL(req.url ?? '/', ANY_ORIGIN).searchParams;
        const token = URL_KEY_PARAMETERS.map((name) => query.get(name)).find((value) => value);
        return token ? { kind: 'bearer', token } : parsed;
      },
    }),
  },

  // Keys (spec §5, §7)
  'full-access-key-refused': {
    description: 'Full Access keys are refused every operation (their access maps to no permission).',
    catches: ['KEY-VALID-SERVED'],
    alsoFails: {
      'ENV-SANDBOX-KEY-SERVED': 'The sandbox credential is a Full Access key.',
      'AUTH-SCHEME-CASE-INSENSITIVE':
        'It probes `bearer`/`BEARER` with the Full Access key, which is refused.',
    },
    steps: () => ({
      permits: (key, permission) => !isFullAccess(key) && CORRECT.permits(key, permission),
    }),
  },
  'unknown-key-as-anonymous': {
    description:
      'A key that is not found authenticates as an anonymous key without permissions: 403, not 401.',
    catches: ['KEY-UNKNOWN-REJECTED'],
    alsoFails: {
      'KEY-ALTERED-REJECTED': 'An altered key is an unknown key: insufficient_permissions too.',
      'KEY-REVOKED-REJECTED': 'A revoked key is not found either: insufficient_permissions too.',
      'KEY-INVALID-401': 'An unknown key gets 403.',
    },
    steps: () => ({
      findKey: (context, host, token) =>
        CORRECT.findKey(context, host, token) ?? {
          id: 'anonymous',
          tenant: host.tenant,
          environment: host.environment,
          permissions: new Set(),
          revoked: false,
        },
    }),
  },
  'key-compared-by-prefix': {
    description: 'Only the first 16 characters of a key are compared.',
    catches: ['KEY-ALTERED-REJECTED'],
    steps: (fixtures) => ({
      findKey: clearKeyLookup(
        fixtures,
        (presented, secret) => presented.slice(0, 16) === secret.slice(0, 16),
      ),
    }),
  },
  'key-compared-case-insensitively': {
    description: 'Keys are compared without regard to letter case.',
    catches: ['KEY-ALTERED-REJECTED'],
    steps: (fixtures) => ({
      findKey: clearKeyLookup(
        fixtures,
        (presented, secret) => presented.toLowerCase() === secret.toLowerCase(),
      ),
    }),
  },
  'revoked-key-accepted': {
    description: 'A revoked key still authenticates.',
    catches: ['KEY-REVOKED-REJECTED'],
    steps: (fixtures) => ({
      findKey: clearKeyLookup(fixtures, (presented, secret) => presented === secret, { revokedToo: true }),
    }),
  },

  // Tenant isolation (spec §1, §5 Tenant identification)
  'key-lookup-ignores-tenant': {
    description: "Keys are looked up in every tenant, not only the host's: another tenant's key is served.",
    catches: ['TENANT-CROSS-KEY-REJECTED'],
    alsoFails: {
      'TENANT-CROSS-KEY-INDISTINGUISHABLE': "Another tenant's key gets 200, an unknown key 401.",
      'TENANT-UNKNOWN-HOST-REJECTED':
        'A valid key on the host of a tenant that does not exist is served (an empty list).',
    },
    steps: () => ({
      findKey: (context, host, token) => inAnyTenant(context, host, token),
    }),
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
    steps: () => ({
      customers: (req, host, context) =>
        CORRECT.customers(req, { ...host, tenant: headerValue(req, 'x-tenant-id') ?? host.tenant }, context),
    }),
  },
  'data-tenant-from-x-forwarded-host': {
    description: "The key is checked in the host's tenant, but the customers are those of X-Forwarded-Host.",
    catches: ['TENANT-FORWARDED-HOST-IGNORED'],
    steps: () => ({
      customers: (req, host, context) => {
        const forwarded = headerValue(req, 'x-forwarded-host');
        const named =
          forwarded === undefined ? undefined : resolveApiHost(hostnameOf(forwarded), context.domain);
        return CORRECT.customers(req, named ?? host, context);
      },
    }),
  },
  'data-tenant-from-tenant-id-field': {
    description:
      "The key is checked in the host's tenant, but the customers are those named by tenant_id (header or query).",
    catches: ['TENANT-ID-FIELDS-IGNORED'],
    steps: () => ({
      customers: (req, host, context) => {
        const named =
          headerValue(req, 'tenant_id') ??
          new URL(req.url ?? '/', ANY_ORIGIN).searchParams.get('tenant_id') ??
          host.tenant;
        return CORRECT.customers(req, { ...host, tenant: named }, context);
      },
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
    },
    steps: () => ({
      sniMatches: () => true,
      tenantOf: (req, hostname, context) =>
        CORRECT.tenantOf(req, (req.socket as TLSSocket).servername || hostname, context),
      customers: (req, host, context) => {
        const hostTenant = resolveApiHost(requestHostname(req) ?? '', context.domain);
        return CORRECT.customers(req, hostTenant ?? host, context);
      },
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
    steps: () => ({
      customers: (req, host, context) => {
        const tenants = context.data.tenantIds;
        const next = tenants[(tenants.indexOf(host.tenant) + 1) % tenants.length] ?? host.tenant;
        const leaked = next === host.tenant ? [] : CORRECT.customers(req, { ...host, tenant: next }, context);
        return [...CORRECT.customers(req, host, context), ...leaked.slice(0, 1)];
      },
    }),
  },
  'all-tenants-customers-served': {
    description: 'The customer query has no tenant filter: every tenant gets the customers of all tenants.',
    catches: ['TENANT-OWN-DATA-ONLY'],
    steps: () => ({
      customers: (req, host, context) =>
        context.data.tenantIds.flatMap((tenant) => CORRECT.customers(req, { ...host, tenant }, context)),
    }),
  },

  // Environments (spec §5 Environments, Key types)
  'sandbox-key-accepted-on-production': {
    description: 'On the production API a development (sandbox) key of the tenant is accepted too.',
    catches: ['ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED'],
    steps: () => ({ findKey: alsoKeysOf('sandbox', 'production') }),
  },
  'production-key-accepted-on-sandbox': {
    description: 'On the sandbox API a production key of the tenant is accepted too.',
    catches: ['ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED'],
    steps: () => ({ findKey: alsoKeysOf('production', 'sandbox') }),
  },
  'development-keys-refused': {
    description: `Only keys with the production prefix (${KEY_PREFIX_BY_ENVIRONMENT.production}) are looked up: development keys are refused even on the sandbox.`,
    catches: ['ENV-SANDBOX-KEY-SERVED'],
    steps: () => ({
      findKey: (context, host, token) =>
        token.startsWith(KEY_PREFIX_BY_ENVIRONMENT.production)
          ? CORRECT.findKey(context, host, token)
          : undefined,
    }),
  },

  // Permissions (spec §5 Authentication versus authorization, §7)
  'permission-check-skipped': {
    description: 'A valid key is served whatever its permissions.',
    catches: ['PERM-INSUFFICIENT-REJECTED', 'PERM-INSUFFICIENT-403'],
    steps: () => ({ permits: () => true }),
  },
  'permission-denied-answered-401': {
    description: 'insufficient_permissions is answered 401 instead of 403.',
    catches: ['PERM-INSUFFICIENT-403'],
    steps: () => ({
      writeResponse: changingAnswers('insufficient_permissions', { status: 401 }),
    }),
  },
  'read-only-key-refused': {
    description: 'Reading needs the write permission as well: Read Only keys are refused.',
    catches: ['PERM-READ-ONLY-READS'],
    steps: () => ({
      permits: (key, permission) =>
        CORRECT.permits(key, permission) &&
        key.permissions.has(permission.replace(/:read$/, ':write') as Permission),
    }),
  },

  // Errors and versioning (spec §7, §9)
  'error-body-extra-member': {
    description: 'Error bodies carry a second top-level member, `status`, beside `error`.',
    catches: ['ERROR-BODY-SHAPE'],
    steps: () => ({
      writeResponse: rewritingAnswers((response) =>
        response.errorCode
          ? { ...response, body: { ...errorBody(response.errorCode), status: response.status } }
          : response,
      ),
    }),
  },
  'error-body-text-plain': {
    description: 'Error bodies are sent as text/plain.',
    catches: ['ERROR-BODY-SHAPE'],
    steps: () => ({
      writeResponse: editingHeaders((headers, response) =>
        response.errorCode ? { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } : headers,
      ),
    }),
  },
  'key-echoed-in-error': {
    description: 'Error messages repeat the Authorization header that was received.',
    catches: ['KEY-NOT-ECHOED'],
    alsoFails: {
      'TENANT-CROSS-KEY-INDISTINGUISHABLE':
        "The bodies for another tenant's key and an unknown key differ by the echoed key.",
    },
    steps: () => ({
      writeResponse: rewritingAnswers((response, req) => {
        const received = req.headers.authorization;
        if (!response.errorCode || received === undefined) return response;
        const body = errorBody(response.errorCode);
        body.error.message = `${body.error.message} Received: ${received}`;
        return { ...response, body };
      }),
    }),
  },
  'errors-cacheable': {
    description: 'Answers carry Cache-Control: private, max-age=300 instead of no-store.',
    catches: ['ERROR-NO-STORE'],
    steps: () => ({
      writeResponse: editingHeaders((headers) => ({ ...headers, 'Cache-Control': 'private, max-age=300' })),
    }),
  },
  'unversioned-path': {
    description:
      'The API is served at /customers, without /v1. Its router runs after the host checks but before authentication, so /v1/… gets 404.',
    catches: ['VERSION-PATH'],
    alsoFails: {
      'AUTH-MISSING-HEADER': NOT_FOUND,
      'AUTH-MISSING-HEADER-401': NOT_FOUND,
      'AUTH-OTHER-SCHEME-REJECTED': NOT_FOUND,
      'AUTH-SCHEME-CASE-INSENSITIVE': NOT_FOUND,
      'AUTH-QUOTED-KEY-REJECTED': NOT_FOUND,
      'AUTH-DUPLICATE-HEADER-REJECTED': NOT_FOUND,
      'AUTH-URL-CREDENTIALS-IGNORED': NOT_FOUND,
      'KEY-VALID-SERVED': NOT_FOUND,
      'KEY-UNKNOWN-REJECTED': NOT_FOUND,
      'KEY-ALTERED-REJECTED': NOT_FOUND,
      'KEY-REVOKED-REJECTED': NOT_FOUND,
      'KEY-INVALID-401': NOT_FOUND,
      'TENANT-CROSS-KEY-REJECTED': NOT_FOUND,
      'ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED': NOT_FOUND,
      'ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED': NOT_FOUND,
      'ENV-SANDBOX-KEY-SERVED': NOT_FOUND,
      'PERM-INSUFFICIENT-REJECTED': NOT_FOUND,
      'PERM-INSUFFICIENT-403': NOT_FOUND,
      'PERM-READ-ONLY-READS': NOT_FOUND,
    },
    steps: () => ({
      findRoute: (path) => CORRECT.findRoute(`/v1${path}`),
      writeResponse: rewritingAnswers((response, req) =>
        response.errorCode !== 'misdirected_request' &&
        new URL(req.url ?? '/', ANY_ORIGIN).pathname.startsWith('/v1/')
          ? apiError('not_found')
          : response,
      ),
    }),
  },
} satisfies Record<string, Fault>;

export type FaultName = keyof typeof CATALOG;

export const FAULTS: Readonly<Record<FaultName, Fault>> = CATALOG;

export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

export function isFaultName(name: string): name is FaultName {
  return Object.hasOwn(FAULTS, name);
}

/** The steps of a server with `fault`, or the correct steps without one. */
export function stepsWith(fault: FaultName | undefined, fixtures: Fixtures): ServerSteps {
  return fault === undefined ? CORRECT : { ...CORRECT, ...FAULTS[fault].steps(fixtures) };
}

/** `--fault list`: one entry per fault, with the rules that must catch it. */
export function faultCatalogText(): string {
  const width = Math.max(...FAULT_NAMES.map((name) => name.length)) + 2;
  const entries = FAULT_NAMES.map((name) => {
    const fault = FAULTS[name];
    return `  ${name.padEnd(width)}${fault.description}\n  ${''.padEnd(width)}caught by ${fault.catches.join(', ')}`;
  });
  return [
    'Faults of the reference server (--fault NAME), each breaking the rules it is caught by.',
    'Only for proving that the conformance suite fails: never run a faulty server for anything else.',
    '',
    ...entries,
  ].join('\n');
}

/** The start-up warning of a faulty server: impossible to overlook. */
export function faultWarning(name: FaultName): string {
  const line = '!'.repeat(78);
  return [
    line,
    `!!! FAULT INJECTED: ${name}`,
    `!!! ${FAULTS[name].description}`,
    `!!! This server deliberately breaks ${FAULTS[name].catches.join(', ')}.`,
    '!!! It exists only to prove that the conformance suite fails. Never use it as a reference.',
    line,
  ].join('\n');
}

function isFullAccess(key: StoredKey): boolean {
  return ALL_PERMISSIONS.every((permission) => key.permissions.has(permission));
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The key `token` is in any tenant, looked up in the host's environment. */
function inAnyTenant(
  context: Parameters<ServerSteps['findKey']>[0],
  host: ApiHost,
  token: string,
): StoredKey | undefined {
  for (const tenant of context.data.tenantIds) {
    const key = CORRECT.findKey(context, { ...host, tenant }, token);
    if (key) return key;
  }
  return undefined;
}

/**
 * A key lookup that, after the correct one, compares the presented key with the fixture keys of
 * the host's tenant and environment in clear, with `same` instead of an exact HMAC match.
 */
function clearKeyLookup(
  fixtures: Fixtures,
  same: (presented: string, secret: string) => boolean,
  options: { revokedToo?: boolean } = {},
): ServerSteps['findKey'] {
  return (context, host, token) => {
    const correct = CORRECT.findKey(context, host, token);
    if (correct) return correct;
    const keys: ApiKey[] = fixtures.tenants.find((tenant) => tenant.id === host.tenant)?.keys ?? [];
    const key = keys.find(
      (candidate) =>
        candidate.environment === host.environment &&
        (options.revokedToo === true || candidate.revoked !== true) &&
        same(token, candidate.secret),
    );
    return (
      key && {
        id: key.id,
        tenant: host.tenant,
        environment: key.environment,
        permissions: permissionsOf(key),
        revoked: false,
      }
    );
  };
}

/** A lookup that, on the `api` environment's host, also accepts the tenant's keys of `keys`. */
function alsoKeysOf(keys: Environment, api: Environment): ServerSteps['findKey'] {
  return (context, host, token) =>
    CORRECT.findKey(context, host, token) ??
    (host.environment === api ? CORRECT.findKey(context, { ...host, environment: keys }, token) : undefined);
}

/** A writer that changes the answers of the error `code` (status, headers, …) before sending them. */
function changingAnswers(code: ApiErrorCode, change: Partial<ApiResponse>): ServerSteps['writeResponse'] {
  return rewritingAnswers((response) =>
    response.errorCode === code ? { ...response, ...change } : response,
  );
}

/** A writer that rewrites each answer before the correct writer sends it. */
function rewritingAnswers(
  rewrite: (response: ApiResponse, req: IncomingMessage) => ApiResponse,
): ServerSteps['writeResponse'] {
  return (res, response, transport) => CORRECT.writeResponse(res, rewrite(response, res.req), transport);
}

/** A writer that edits the header fields the correct writer chose, just before they are sent. */
function editingHeaders(
  edit: (headers: OutgoingHttpHeaders, response: ApiResponse) => OutgoingHttpHeaders,
): ServerSteps['writeResponse'] {
  return (res, response, transport) => {
    const writeHead = res.writeHead.bind(res) as (
      status: number,
      headers: OutgoingHttpHeaders,
    ) => ServerResponse;
    res.writeHead = ((status: number, headers: OutgoingHttpHeaders) =>
      writeHead(status, edit(headers, response))) as ServerResponse['writeHead'];
    CORRECT.writeResponse(res, response, transport);
  };
}
