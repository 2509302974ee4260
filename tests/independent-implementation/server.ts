// An independent implementation of the access-and-authentication spec on Fastify, written from
// the spec alone, to prove that the conformance suite passes a correct deployment that is not the
// reference server: other framework, other key format, other response shape, other sandbox host,
// EC certificates, plain HTTP not listening at all. It shares no code with reference-server/.
//
// Check order: host and SNI → Authorization lines → key syntax → key lookup scoped to the
// host's tenant and environment → permission. Every answer carries no-store and HSTS.
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { addressing, hostPattern } from './addressing.ts';
import { presentedKey } from './bearer.ts';
import { makeCertificates } from './certificates.ts';
import { customersOf, KeyDirectory, type KeyName, type KeyRecord, type Permission } from './directory.ts';

export interface IndependentServer {
  port: number;
  /** PEM of the CA that signed the server's certificate. */
  caPem: string;
  keys: Readonly<Record<KeyName, string>>;
  close(): Promise<void>;
}

const REALM = 'customers-api';

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

export async function startIndependentServer(domain = 'localhost'): Promise<IndependentServer> {
  const certificates = await makeCertificates('Independent Implementation Test CA', [
    `*.api.${domain}`,
    `*.sandbox.api.${domain}`,
  ]);
  const directory = new KeyDirectory();
  const pattern = hostPattern(domain);
  const app = Fastify({
    https: { key: certificates.key, cert: certificates.cert, minVersion: 'TLSv1.2' },
    logger: false,
    // Forwarding headers name no tenant here: there is no trusted proxy in front.
    trustProxy: false,
    forceCloseConnections: true,
  });

  // Every answer, errors included: never cached, and HTTPS only from now on.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('Cache-Control', 'no-store');
    reply.header('Strict-Transport-Security', 'max-age=63072000; includeSubDomains');
    return payload;
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const socket = request.raw.socket as TLSSocket;
    const addressed = addressing(request.raw.headersDistinct.host, socket.servername, pattern);
    if (addressed.kind === 'misdirected')
      return sendError(reply, 421, 'misdirected_request', 'This connection is not for the requested host.');
    if (addressed.kind === 'unknown-host')
      return sendError(reply, 404, 'unknown_host', 'No API is served at this host.');

    const presented = presentedKey(request.raw.headersDistinct.authorization);
    if (presented.kind === 'ambiguous')
      return sendError(reply, 400, 'invalid_request', 'Send exactly one Authorization header.');
    if (presented.kind === 'absent') return authError(reply, 'missing_authorization_header');
    if (presented.kind === 'malformed') return authError(reply, 'invalid_api_key');
    // An unknown tenant has no keys: it answers exactly like an unknown key on a real tenant.
    const record = directory.find(presented.key, addressed.tenant, addressed.environment);
    if (!record) return authError(reply, 'invalid_api_key');
    request.apiKey = record;
  });

  app.get('/v1/customers', async (request, reply) => {
    const record = request.apiKey;
    if (!record) throw new Error('onRequest lets no request through without a key');
    if (!record.permissions.has('customers:read'))
      return authError(reply, 'insufficient_permissions', 'customers:read');
    return { customers: customersOf(record.tenant, record.environment) };
  });

  app.setNotFoundHandler((_request, reply) => sendError(reply, 404, 'not_found', 'No such resource.'));
  // Never a stack trace, never the framework's own error shape.
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    return sendError(reply, status, status < 500 ? 'bad_request' : 'internal_error', 'The request failed.');
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { port, caPem: certificates.caPem, keys: directory.secrets, close: () => app.close() };
}
