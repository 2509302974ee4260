// An independent implementation of the access-and-authentication spec on Fastify, written from
// the spec alone, to prove that the conformance suite passes a correct deployment that is not the
// reference server: other framework, other key format, other response shape, other sandbox host,
// EC certificates, plain HTTP not listening at all. It shares no code with reference-server/.
//
// Check order: host and SNI → (Content-Type) → Authorization lines → key syntax → key lookup
// scoped to the host's tenant and environment → permission. Every answer carries no-store and HSTS.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createSecureContext, type TlsOptions, type TLSSocket } from 'node:tls';
import { addressing, hostPattern } from './addressing.ts';
import { presentedKey } from './bearer.ts';
import { makeCertificateSet, type CertificateSet } from './certificates.ts';
import { customerPage } from './customer-pages.ts';
import { formPage, PAGING_FORMS, type PagingForm } from './paging-forms.ts';
import { DEFAULT_CHOICES, type ServerChoices } from './choices.ts';
import { Sessions, stickyBalancerCookies } from './cookies.ts';
import { startH2cPlainPort } from './h2c-plain-port.ts';
import { answerConditionals } from './validators.ts';
import { answerErrorsInHtml, drainConnections, refuseStreams } from './defect-hooks.ts';
import {
  customersOf,
  KeyDirectory,
  TENANTS,
  type KeyName,
  type KeyRecord,
  type Permission,
} from './directory.ts';

export interface IndependentServer {
  port: number;
  /** The plain-HTTP listener's port, when the choices open one. */
  plainHttpPort?: number;
  /** PEM of the CA that signed the server's certificate. */
  caPem: string;
  keys: Readonly<Record<KeyName, string>>;
  /** Every request that reached the app, as it arrived, oldest first. */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** A request as the app received it: every header line, in order (over HTTP/2, pseudo-headers first). */
export interface ReceivedRequest {
  method: string;
  url: string;
  httpVersion: string;
  /** Name, value, name, value… (Node's rawHeaders). */
  rawHeaders: string[];
}

const REALM = 'customers-api';

/** The User-Agent a cloaking front (`servesKeylessToOtherAgents`) checks keys for. */
export const CLOAKED_FOR = 'tenant-auth-conformance';

const MESSAGES = {
  missing_authorization_header: 'Authorization header is required.',
  invalid_api_key: 'The provided API key is invalid.',
  insufficient_permissions: 'You do not have permission to access this resource.',
} as const;

type AuthCode = keyof typeof MESSAGES;

function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).type('application/json').send({ error: { code, message } });
}

/** 401/403 with the Bearer challenge of RFC 6750 §3. */
function authError(reply: FastifyReply, code: AuthCode, scope?: Permission): FastifyReply {
  const challenge = {
    missing_authorization_header: `Bearer realm="${REALM}"`,
    invalid_api_key: `Bearer realm="${REALM}", error="invalid_token"`,
    insufficient_permissions: `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope ?? ''}"`,
  }[code];
  reply.header('WWW-Authenticate', challenge);
  return sendError(reply, code === 'insufficient_permissions' ? 403 : 401, code, MESSAGES[code]);
}

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: KeyRecord;
  }
}

/** A body sent in pieces: Fastify then sends it chunked, without Content-Length. */
function inChunks(text: string): Readable {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return Readable.from(pieces);
}

/**
 * Every answer, errors included: never cached (or, by choice, cacheable by the client only), and
 * HTTPS only from now on; with `chunked`, every body is sent chunked.
 */
function addResponseHeaders(
  app: FastifyInstance,
  hsts: boolean,
  servedCaching: ServerChoices['servedCaching'] = 'no-store',
  chunked = false,
  cookies: ServerChoices['cookies'] = 'none',
): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (cookies === 'sticky-balancer') reply.header('Set-Cookie', stickyBalancerCookies());
    if (servedCaching === 'vary-authorization' && reply.statusCode === 200) {
      reply.header('Cache-Control', 'max-age=60');
      reply.header('Vary', 'Authorization');
    } else reply.header('Cache-Control', 'no-store');
    if (hsts) reply.header('Strict-Transport-Security', 'max-age=63072000; includeSubDomains');
    return chunked && typeof payload === 'string' ? inChunks(payload) : payload;
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, 404, 'not_found', 'No such resource.'));
  // Never a stack trace, never the framework's own error shape.
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    return sendError(reply, status, status < 500 ? 'bad_request' : 'internal_error', 'The request failed.');
  });
}

/**
 * The API's app. Over HTTPS, forwarding headers name nothing: there is no trusted proxy in front.
 * Without TLS material it is the plain-HTTP app of the `trusts-forwarded-proto` defect: written
 * for a TLS-terminating proxy, it trusts X-Forwarded-Proto and refuses only what is not "https".
 */
function api(
  tls: TlsSettings | undefined,
  directory: KeyDirectory,
  domain: string,
  choices: ServerChoices,
  received: ReceivedRequest[],
  sessions: Sessions,
): FastifyInstance {
  const pattern = hostPattern(domain);
  const common = { logger: false, forceCloseConnections: true } as const;
  const app: FastifyInstance = !tls
    ? choices.plainHttp === 'serves-h2c'
      ? (Fastify({ logger: false, http2: true }) as unknown as FastifyInstance)
      : Fastify({ ...common, trustProxy: true })
    : choices.http2
      ? // HTTP/2 and HTTP/1.1 by ALPN on one listener; Fastify types that as another kind of app.
        (Fastify({
          logger: false,
          http2: true,
          https: { ...tls, allowHTTP1: choices.http1, minVersion: 'TLSv1.2' },
          trustProxy: false,
        }) as unknown as FastifyInstance)
      : Fastify({ ...common, https: { ...tls, minVersion: 'TLSv1.2' }, trustProxy: false });
  if (choices.errorBodies === 'html') answerErrorsInHtml(app);
  // Before addResponseHeaders' hook, which may turn the body into chunks.
  if (choices.validators === 'per-tenant-etag') answerConditionals(app);
  addResponseHeaders(
    app,
    tls !== undefined,
    choices.servedCaching,
    choices.customerList === 'paged-chunked',
    choices.cookies,
  );
  if (tls && choices.http2 && choices.refuseStreamEvery > 0) refuseStreams(app, choices.refuseStreamEvery);
  if (tls && choices.http2 && choices.drainConnectionEvery > 0)
    drainConnections(app, choices.drainConnectionEvery);
  app.addHook('onRequest', ({ raw }, _reply, done) => {
    received.push({
      method: raw.method ?? '',
      url: raw.url ?? '',
      httpVersion: raw.httpVersion,
      rawHeaders: [...raw.rawHeaders],
    });
    done();
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // request.protocol is X-Forwarded-Proto's when the proxy is trusted.
    // The h2c backend was written to sit behind a TLS front: it never asks how a request arrived.
    const arrivedOverTls = request.protocol === 'https' || (!tls && choices.plainHttp === 'serves-h2c');
    if (!arrivedOverTls) {
      reply.header('Connection', 'close');
      return sendError(reply, 403, 'https_required', 'This API is served over HTTPS only.');
    }
    const socket = request.raw.socket as TLSSocket;
    const servername = choices.sniMustMatchHost ? socket.servername : undefined;
    // Over HTTP/2 the host is the :authority pseudo-header (RFC 9113 §8.3.1); a host field that
    // names another host makes two hosts, which address no tenant (unless the app reads only
    // the :authority).
    const overH2 = request.raw.httpVersion === '2.0' && choices.http2 !== 'reads-host-field';
    const hosts = overH2
      ? http2Hosts(request.raw.rawHeaders, choices.http2 !== 'authority-only')
      : fieldValues(request.raw.rawHeaders, 'host');
    const addressed = addressing(hosts, servername, pattern);
    if (addressed.kind === 'misdirected')
      return sendError(reply, 421, 'misdirected_request', 'This connection is not for the requested host.');
    if (addressed.kind === 'unknown-host')
      return sendError(reply, 404, 'unknown_host', 'No API is served at this host.');
    if (choices.unknownTenant === 'not-found' && !TENANTS.includes(addressed.tenant))
      return sendError(reply, 404, 'unknown_host', 'No API is served at this host.');
    const contentType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (choices.requireJsonContentType && contentType !== 'application/json')
      return sendError(reply, 415, 'unsupported_media_type', 'Send Content-Type: application/json.');

    const presented = presentedKey(
      fieldValues(request.raw.rawHeaders, 'authorization'),
      choices.schemeCaseInsensitive,
      choices.bearerSyntax === 'lenient',
    );
    if (presented.kind === 'ambiguous') {
      if (choices.duplicateAuthorization === 'invalid-key') return authError(reply, 'invalid_api_key');
      if (choices.duplicateAuthorization === 'forbidden')
        return sendError(reply, 403, 'request_blocked', 'The request was blocked.');
      return sendError(reply, 400, 'invalid_request', 'Send exactly one Authorization header.');
    }
    const session =
      choices.cookies === 'session'
        ? sessions.holder(fieldValues(request.raw.rawHeaders, 'cookie'))
        : undefined;
    if (presented.kind === 'absent' && session) {
      request.apiKey = session;
      return;
    }
    // The defect: a cloaking front that checks keys only for the suite that used to announce itself.
    const userAgent = fieldValues(request.raw.rawHeaders, 'user-agent')?.[0] ?? '';
    if (presented.kind === 'absent' && choices.servesKeylessToOtherAgents && userAgent !== CLOAKED_FOR) {
      request.apiKey = {
        tenant: addressed.tenant,
        environment: addressed.environment,
        permissions: new Set<Permission>(['customers:read']),
        revoked: false,
      };
      return;
    }
    if (presented.kind === 'absent') return authError(reply, 'missing_authorization_header');
    if (presented.kind === 'other-scheme') return authError(reply, choices.otherSchemeCode);
    if (presented.kind === 'malformed') return authError(reply, 'invalid_api_key');
    // An unknown tenant has no keys: it answers like an unknown key on a real tenant.
    const record = directory.live(presented.key);
    if (!record || record.environment !== addressed.environment) return authError(reply, 'invalid_api_key');
    // The defect: a TLS-terminating front whose `http/1.1` ALPN route skips the tenant check.
    const alpnRouteLeaks =
      choices.crossTenantOverAlpnHttp11 && (request.raw.socket as TLSSocket).alpnProtocol === 'http/1.1';
    if (record.tenant !== addressed.tenant && !alpnRouteLeaks)
      return authError(reply, choices.crossTenantKey);
    request.apiKey = record;
  });

  app.get('/v1/customers', async (request, reply) => {
    const record = request.apiKey;
    if (!record) throw new Error('onRequest lets no request through without a key');
    if (!record.permissions.has('customers:read'))
      return authError(reply, 'insufficient_permissions', 'customers:read');
    if (choices.cookies === 'session') reply.header('Set-Cookie', sessions.issue(record, domain));
    if (choices.customerList === 'whole')
      return { customers: customersOf(record.tenant, record.environment) };
    const list = choices.customerList;
    if ((PAGING_FORMS as readonly string[]).includes(list)) {
      const authority = request.headers[':authority'] ?? request.headers.host;
      const page = formPage(
        list as PagingForm,
        record,
        request.query as Record<string, string | undefined>,
        `https://${String(authority)}`,
        choices.pagedLeakFromPage2,
      );
      if (!page) return sendError(reply, 400, 'invalid_cursor', 'The cursor is not one this list issued.');
      if (page.link) reply.header('Link', page.link);
      return page.body;
    }
    const page = customerPage(
      list as Exclude<typeof list, PagingForm | 'whole'>,
      record,
      request.query as { cursor?: string; page?: string },
      choices.longLists,
    );
    if (!page) return sendError(reply, 400, 'invalid_cursor', 'The cursor is not one this list issued.');
    if (page.link) reply.header('Link', page.link);
    return page.body;
  });
  return app;
}

/** Every value of the field `name` (lower case), in order: what HTTP/1.1 and HTTP/2 requests both keep. */
function fieldValues(rawHeaders: readonly string[], name: string): string[] | undefined {
  const values: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2)
    if (rawHeaders[index]?.toLowerCase() === name) values.push(rawHeaders[index + 1] ?? '');
  return values.length > 0 ? values : undefined;
}

/** Plain HTTP never authenticates and never redirects: 403 to everything, then close. */
function plainHttpRefusal(): FastifyInstance {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  addResponseHeaders(app, false);
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('Connection', 'close');
    return sendError(reply, 403, 'https_required', 'This API is served over HTTPS only.');
  });
  return app;
}

type TlsSettings = Pick<TlsOptions, 'key' | 'cert' | 'SNICallback'>;

/** The names each choice of certificate covers: one leaf per list. */
function leafNames(choice: ServerChoices['certificate'], domain: string): string[][] {
  const tenantHosts = TENANTS.flatMap((tenant) => [
    `${tenant}.api.${domain}`,
    `${tenant}.sandbox.api.${domain}`,
  ]);
  if (choice === 'wildcard') return [[`*.api.${domain}`, `*.sandbox.api.${domain}`]];
  if (choice === 'tenant-names') return [tenantHosts];
  return tenantHosts.map((host) => [host]);
}

/**
 * The listener's certificate, or for `per-host-by-sni` the SNI callback that picks one: no
 * default certificate, so a handshake without SNI or for another name has none and fails.
 */
function tlsSettings(choice: ServerChoices['certificate'], domain: string, set: CertificateSet): TlsSettings {
  const [first = { key: '', cert: '' }] = set.leaves;
  if (choice !== 'per-host-by-sni') return first;
  const names = leafNames(choice, domain);
  const contexts = new Map(
    set.leaves.map((leaf, index) => [
      names[index]?.[0] ?? '',
      createSecureContext({ ...leaf, minVersion: 'TLSv1.2' }),
    ]),
  );
  return {
    SNICallback: (servername, done) => {
      const context = contexts.get(servername.toLowerCase());
      if (context) done(null, context);
      else done(new Error(`no certificate for ${servername}`));
    },
  };
}

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

export async function startIndependentServer(
  choices: Partial<ServerChoices> = {},
  domain = 'localhost',
): Promise<IndependentServer> {
  const chosen = { ...DEFAULT_CHOICES, ...choices };
  const certificates = await makeCertificateSet(
    'Independent Implementation Test CA',
    leafNames(chosen.certificate, domain),
  );
  const directory = new KeyDirectory();
  const received: ReceivedRequest[] = [];
  const sessions = new Sessions();
  const apps = [
    api(tlsSettings(chosen.certificate, domain, certificates), directory, domain, chosen, received, sessions),
  ];
  if (chosen.plainHttp === 'answers-403') apps.push(plainHttpRefusal());
  if (chosen.plainHttp === 'trusts-forwarded-proto' || chosen.plainHttp === 'serves-h2c')
    apps.push(api(undefined, directory, domain, chosen, received, sessions));
  const [port = 0, appPlainPort] = await Promise.all(apps.map(listen));
  const h2cPort = chosen.plainHttp === 'h2c-switch-then-403' ? await startH2cPlainPort() : undefined;
  return {
    port,
    plainHttpPort: h2cPort?.port ?? appPlainPort,
    caPem: certificates.caPem,
    keys: directory.secrets,
    received,
    close: async () => {
      await Promise.all(apps.map((app) => app.close()));
      if (h2cPort) await new Promise((closed) => h2cPort.server.close(closed));
    },
  };
}

/** The :authority, and a host field beside it when `readHostField` and it names another host. */
function http2Hosts(rawHeaders: readonly string[], readHostField: boolean): string[] {
  const authorities = fieldValues(rawHeaders, ':authority') ?? [];
  const hostFields = (readHostField ? fieldValues(rawHeaders, 'host') : undefined) ?? [];
  return [...authorities, ...hostFields.filter((host) => !authorities.includes(host))];
}
