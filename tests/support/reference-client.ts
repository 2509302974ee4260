// Test client for the reference server: starts it on free ports with a temporary certificate
// directory, and sends requests with full control of what goes on the wire — the TLS SNI name,
// the `Host` header, duplicated or oddly spaced headers — since those are what the rules are about.
// Node does not resolve `*.localhost`, so every request connects to 127.0.0.1 and names the host
// only in SNI and `Host`, as a client resolving the name would.
import { faultySteps, type FaultName } from '../../mutation/catalog.ts';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as http2Connect } from 'node:http2';
import { connect as tlsConnect, checkServerIdentity as defaultCheckServerIdentity } from 'node:tls';
import { connect as netConnect, type Socket } from 'node:net';
import { readFileSync, rmSync } from 'node:fs';
import { after, before } from 'node:test';
import { resolve } from 'node:path';
import type { Fixtures } from '../../schemas/generated/fixtures.ts';
import { jsonLinesAccessLog } from '../../reference-server/http/access-log.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../reference-server/store/fixtures.ts';
import { apiHostname, type Environment } from '../../reference-server/http/hosts.ts';
import {
  startReferenceServer,
  type RunningReferenceServer,
  type ServerLimits,
} from '../../reference-server/server.ts';
import { scratchDirectory } from './scratch.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const LOOPBACK = '127.0.0.1';
export const DOMAIN = 'localhost';
/**
 * Every exchange of a test gives up after this long, so that a hung server fails the test. It only
 * guards against hangs (generous, for a loaded machine): speed is measured in benchmarks.
 */
export const HANG_TIMEOUT_MS = 30_000;

export interface TestServer {
  server: RunningReferenceServer;
  fixtures: Fixtures;
  /** PEM of the server's CA, passed to every request as its only trust anchor. */
  ca: string;
  certDir: string;
  /** Access-log lines written so far (JSON lines, as the CLI would print them). */
  accessLog: string[];
  close(): Promise<void>;
}

export async function startTestServer(
  options: {
    limits?: ServerLimits;
    adminToken?: string;
    journalCapacity?: number;
    fault?: FaultName;
    http2?: boolean;
    customersPageSize?: number;
  } = {},
): Promise<TestServer> {
  const certDir = scratchDirectory('reference-certs-');
  const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
  const accessLog: string[] = [];
  const server = await startReferenceServer({
    host: LOOPBACK,
    httpsPort: 0,
    httpPort: 0,
    domain: DOMAIN,
    fixtures,
    certDir,
    accessLog: jsonLinesAccessLog((line) => accessLog.push(line)),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    ...(options.journalCapacity === undefined ? {} : { journalCapacity: options.journalCapacity }),
    ...(options.http2 === undefined ? {} : { http2: options.http2 }),
    ...(options.customersPageSize === undefined ? {} : { customersPageSize: options.customersPageSize }),
    steps: faultySteps(options.fault, fixtures),
  });
  return {
    server,
    fixtures,
    ca: readFileSync(server.caPath, 'utf8'),
    certDir,
    accessLog,
    close: async () => {
      await server.close();
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}

/**
 * A reference server for the tests of the enclosing `describe`: started before them, closed after
 * them. Its tests read it through the function returned (it exists once the `before` hook ran).
 */
export function testServerPerSuite(options: Parameters<typeof startTestServer>[0] = {}): () => TestServer {
  let started: TestServer | undefined;
  before(async () => {
    started = await startTestServer(options);
  });
  after(async () => {
    await started?.close();
  });
  return () => {
    if (!started) throw new Error('The suite’s reference server is read before its before hook ran.');
    return started;
  };
}

/** The API host name of a tenant: `acme.api.localhost` or `sandbox-acme.api.localhost`. */
export function hostOf(tenant: string, environment: Environment = 'production'): string {
  return apiHostname(tenant, environment, DOMAIN);
}

/** The secret of a fixture key, by its public id. */
export function secretOf(fixtures: Fixtures, keyId: string): string {
  for (const tenant of fixtures.tenants) {
    const key = tenant.keys.find((candidate) => candidate.id === keyId);
    if (key) return key.secret;
  }
  throw new Error(`No fixture key with id ${keyId}.`);
}

export function allSecrets(fixtures: Fixtures): string[] {
  return fixtures.tenants.flatMap((tenant) => tenant.keys.map((key) => key.secret));
}

export interface SendOptions {
  /** Tenant whose host is used for both SNI and `Host` unless those are given. Default acme. */
  tenant?: string;
  environment?: Environment;
  /** The `Host` header value; `null` sends none. Default: the tenant's host. */
  host?: string | null;
  /** The TLS SNI name. Default: the host name of `host`. */
  servername?: string;
  method?: string;
  /** Request target. Default `/v1/customers`. */
  path?: string;
  /** Header lines in order; a name may repeat. */
  headers?: ReadonlyArray<readonly [string, string]>;
  /**
   * Verify that the certificate covers this host name instead of the SNI name. Used for host
   * names the certificate does not cover (the CA chain is still verified).
   */
  verifyHostname?: string;
  /** Send over the plain-HTTP listener instead. */
  plain?: boolean;
  /** A request body (its `Content-Length` is added). */
  body?: string;
  /** Over HTTP/2 (ALPN h2): `host` is the `:authority`, the other fields lower-cased. */
  http2?: boolean;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  /** Name/value pairs as received, to see duplicates and exact spelling. */
  rawHeaders: string[];
  body: string;
}

/** One request on a fresh connection (no agent, so that connections never carry over). */
export function send(target: TestServer, options: SendOptions = {}): Promise<Reply> {
  if (options.http2) return sendOverHttp2(target, options);
  const tenant = options.tenant ?? 'acme';
  const host = options.host === undefined ? hostOf(tenant, options.environment) : options.host;
  const servername = options.servername ?? (host ?? '').replace(/:\d+$/, '');
  const headers: string[] = [];
  if (host !== null) headers.push('Host', host);
  for (const [name, value] of options.headers ?? []) headers.push(name, value);
  if (options.body !== undefined) headers.push('Content-Length', String(Buffer.byteLength(options.body)));

  const common = {
    host: LOOPBACK,
    method: options.method ?? 'GET',
    path: options.path ?? '/v1/customers',
    headers,
    setHost: false,
    agent: false,
    timeout: HANG_TIMEOUT_MS,
  } as const;
  return new Promise<Reply>((resolvePromise, reject) => {
    const onResponse = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolvePromise({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    };
    const req = options.plain
      ? httpRequest({ ...common, port: target.server.httpPort ?? 0 }, onResponse)
      : httpsRequest(
          {
            ...common,
            port: target.server.httpsPort,
            ca: target.ca,
            servername,
            checkServerIdentity: (_name, cert) =>
              defaultCheckServerIdentity(options.verifyHostname ?? servername, cert),
          },
          onResponse,
        );
    req.on('timeout', () => req.destroy(new Error('The reference server did not answer in time.')));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** `send` over HTTP/2, on a session of its own. */
function sendOverHttp2(target: TestServer, options: SendOptions): Promise<Reply> {
  const host = options.host ?? hostOf(options.tenant ?? 'acme', options.environment);
  const servername = options.servername ?? host.replace(/:\d+$/, '');
  const fields: Record<string, string> = {
    ':method': options.method ?? 'GET',
    ':path': options.path ?? '/v1/customers',
    ':authority': host,
  };
  for (const [name, value] of options.headers ?? []) fields[name.toLowerCase()] = value;
  return new Promise<Reply>((resolvePromise, reject) => {
    const session = http2Connect(`https://${LOOPBACK}:${target.server.httpsPort}`, {
      ca: target.ca,
      servername,
    });
    const fail = (error: Error): void => {
      session.destroy();
      reject(error);
    };
    session.on('error', fail);
    session.setTimeout(HANG_TIMEOUT_MS, () =>
      fail(new Error('The reference server did not answer in time.')),
    );
    const stream = session.request(fields, { endStream: options.body === undefined });
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    stream.on('response', (answer) => {
      status = Number(answer[':status']);
      headers = answer;
    });
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      session.close();
      const rawHeaders = Object.entries(headers).flatMap(([name, value]) => [name, String(value)]);
      resolvePromise({ status, headers, rawHeaders, body: Buffer.concat(chunks).toString('utf8') });
    });
    stream.on('error', fail);
    if (options.body !== undefined) stream.end(options.body);
  });
}

/**
 * A new connection to the test server, plain or TLS (with `servername`, or none at all when it is
 * null: no SNI, and the certificate's name unchecked), that writes `bytes` once open.
 */
export function rawConnection(
  target: TestServer,
  options: { plain?: boolean; servername: string | null },
  bytes: string,
): Socket {
  const socket: Socket = options.plain
    ? netConnect({ host: LOOPBACK, port: target.server.httpPort ?? 0 }, () => socket.write(bytes))
    : tlsConnect(
        {
          host: LOOPBACK,
          port: target.server.httpsPort,
          ca: target.ca,
          ...(options.servername === null
            ? { checkServerIdentity: () => undefined }
            : { servername: options.servername }),
        },
        () => socket.write(bytes),
      );
  return socket;
}

/**
 * Writes `text` as-is on a new connection (TLS with `servername` as SNI, or plain TCP to the
 * plain-HTTP port) and parses the response, for requests an HTTP client refuses to send.
 */
export function sendRaw(
  target: TestServer,
  text: string,
  options: { servername?: string; plain?: boolean } = {},
): Promise<Reply> {
  return new Promise<Reply>((resolvePromise, reject) => {
    const socket = rawConnection(
      target,
      { ...options, servername: options.servername ?? hostOf('acme') },
      text,
    );
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (result: Reply | Error): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (result instanceof Error) reject(result);
      else resolvePromise(result);
    };
    const received = (): string => Buffer.concat(chunks).toString('latin1');
    socket.setTimeout(HANG_TIMEOUT_MS, () =>
      finish(new Error('The reference server did not answer in time.')),
    );
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // A complete answer ends the exchange even if the server keeps the connection open.
      const reply = completeResponse(received());
      if (reply) finish(reply);
    });
    socket.on('error', (error) => finish(error));
    socket.on('end', () => {
      try {
        finish(parseResponse(received()));
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** The response in `text` if its head and its whole `Content-Length` body have arrived. */
function completeResponse(text: string): Reply | undefined {
  if (!text.includes('\r\n\r\n')) return undefined;
  const reply = parseResponse(text);
  const length = Number(reply.headers['content-length']);
  return Number.isInteger(length) && Buffer.byteLength(reply.body, 'latin1') >= length ? reply : undefined;
}

/** A minimal HTTP/1.1 response parser, enough for the reference server's `Content-Length` bodies. */
function parseResponse(text: string): Reply {
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd === -1) throw new Error(`Not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, headEnd).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (!status) throw new Error(`Not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const rawHeaders: string[] = [];
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    rawHeaders.push(name, value);
    headers[name.toLowerCase()] = value;
  }
  return { status: Number(status), headers, rawHeaders, body: text.slice(headEnd + 4) };
}
