// Test support for key management: starts the reference server with a data directory and an
// admin token, and talks to its panel, admin API and tenant API hosts over real TLS. Node does not
// resolve `*.localhost`, so every request connects to 127.0.0.1 and names its host in SNI and
// `Host`, trusting only the server's own CA.
import { after, before } from 'node:test';
import { readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Fixtures } from '../../schemas/generated/fixtures.ts';
import { jsonLinesAccessLog } from '../../reference-server/http/access-log.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../reference-server/store/fixtures.ts';
import {
  adminHostname,
  apiHostname,
  panelHostname,
  type Environment,
} from '../../reference-server/http/hosts.ts';
import { startReferenceServer, type RunningReferenceServer } from '../../reference-server/server.ts';
import { send as sendRequest, type TestServer } from './reference-client.ts';
import { jsonOrUndefined } from './json.ts';
import { scratchDirectory } from './scratch.ts';

const LOOPBACK = '127.0.0.1';
const DOMAIN = 'localhost';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Exchange {
  hostname: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The TLS SNI name; the `hostname` unless a test wants them to differ. */
  servername?: string;
  /** Over HTTP/2, as browsers speak to the panel: the host is the `:authority`. */
  http2?: boolean;
}

export interface KeyManagementServer {
  server: RunningReferenceServer;
  fixtures: Fixtures;
  ca: string;
  dataDir: string;
  adminToken: string;
  accessLog: string[];
  /** Keys the server handed out during a test; `close` proves none reached the access log. */
  handedOut: string[];
  send(exchange: Exchange): Promise<Reply>;
  /** An admin API call with the admin token (or `token`), JSON in and out. */
  admin(method: string, path: string, body?: unknown, token?: string): Promise<Reply & { json: unknown }>;
  /** GET /v1/customers on a tenant API host with `key`. */
  customers(tenant: string, environment: Environment, key: string): Promise<Reply & { json: unknown }>;
  /** Stops the server and starts it again on the same data directory (and new ports). */
  restart(): Promise<void>;
  /** Checks that no handed-out key and not the admin token reached the access log, then stops the server and removes its directories. */
  close(): Promise<void>;
}

export interface StartOptions {
  dataDir?: string;
  usageFlushMs?: number;
  fixtures?: Fixtures;
  /** Also start the plain-HTTP listener (on a free port). */
  plainHttp?: boolean;
}

/**
 * A key-management server for the tests of the enclosing `describe` (or of the file, called at its
 * top): started before them, closed after them — close() also checks that no key and not the admin
 * token reached the access log. Its tests read it through the function returned.
 */
export function keyManagementServerPerSuite(options: StartOptions = {}): () => KeyManagementServer {
  let started: KeyManagementServer | undefined;
  before(async () => {
    started = await startKeyManagementServer(options);
  });
  after(() => started?.close());
  return () => {
    if (!started) throw new Error('The suite’s key-management server is read before its before hook ran.');
    return started;
  };
}

export async function startKeyManagementServer(options: StartOptions = {}): Promise<KeyManagementServer> {
  const certDir = scratchDirectory('km-certs-');
  const dataDir = options.dataDir ?? scratchDirectory('km-data-');
  const fixtures = options.fixtures ?? loadFixtures(DEFAULT_FIXTURES_FILE);
  const adminToken = `test_${randomBytes(32).toString('base64url')}`;
  const accessLog: string[] = [];
  const start = () =>
    startReferenceServer({
      host: LOOPBACK,
      httpsPort: 0,
      httpPort: options.plainHttp === true ? 0 : null,
      domain: DOMAIN,
      fixtures,
      certDir,
      dataDir,
      adminToken,
      ...(options.usageFlushMs === undefined ? {} : { usageFlushMs: options.usageFlushMs }),
      accessLog: jsonLinesAccessLog((line) => accessLog.push(line)),
    });
  let server = await start();
  const ca = readFileSync(server.caPath, 'utf8');

  const handle: KeyManagementServer = {
    get server() {
      return server;
    },
    fixtures,
    ca,
    dataDir,
    adminToken,
    accessLog,
    handedOut: [],
    send: (exchange) => send(server.httpsPort, ca, exchange),
    admin: async (method, path, body, token = adminToken) => {
      const reply = await send(server.httpsPort, ca, {
        hostname: adminHostname(DOMAIN),
        method,
        path: `/v1${path}`,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { ...reply, json: jsonOrUndefined(reply.body) };
    },
    customers: async (tenant, environment, key) => {
      const reply = await send(server.httpsPort, ca, {
        hostname: apiHostname(tenant, environment, DOMAIN),
        path: '/v1/customers',
        headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' },
      });
      return { ...reply, json: jsonOrUndefined(reply.body) };
    },
    restart: async () => {
      await server.close();
      server = await start();
    },
    close: async () => {
      await server.close();
      const log = accessLog.join('');
      const leaked = [...handle.handedOut, adminToken].filter((secret) => log.includes(secret)).length;
      if (leaked > 0) throw new Error(`${leaked} secret(s) reached the access log.`);
      rmSync(certDir, { recursive: true, force: true });
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

export function panelHost(tenant: string, environment: Environment = 'production'): string {
  return panelHostname(tenant, environment, DOMAIN);
}

/** One request over TLS to 127.0.0.1, naming `exchange.hostname` in SNI and `Host` (with the port, as a browser does). */
export function send(port: number, ca: string, exchange: Exchange): Promise<Reply> {
  // The shared send() reads only `server.httpsPort` and `ca` of its target.
  const target = { server: { httpsPort: port }, ca } as unknown as TestServer;
  return sendRequest(target, {
    host: `${exchange.hostname}:${port}`,
    servername: exchange.servername ?? exchange.hostname,
    method: exchange.method ?? 'GET',
    path: exchange.path,
    headers: Object.entries(exchange.headers ?? {}),
    ...(exchange.body === undefined ? {} : { body: exchange.body }),
    ...(exchange.http2 ? { http2: true } : {}),
  });
}

/**
 * A browser-like client of one panel host: it keeps the session cookie and sends each form with
 * the CSRF token of the last page it read, as a browser submitting that page's form would.
 */
export class PanelClient {
  cookie: string | undefined;
  lastPage = '';

  constructor(
    readonly km: KeyManagementServer,
    readonly hostname: string,
    /** Every request over HTTP/2 instead of HTTP/1.1. */
    readonly http2 = false,
  ) {}

  get origin(): string {
    return `https://${this.hostname}:${this.km.server.httpsPort}`;
  }

  async get(path: string): Promise<Reply> {
    return this.#remember(
      await this.km.send({
        hostname: this.hostname,
        path,
        headers: this.cookie ? { Cookie: this.cookie } : {},
        http2: this.http2,
      }),
    );
  }

  /** POSTs a form; `csrfToken` defaults to the one in the last page read. */
  async post(
    path: string,
    fields: Record<string, string | string[]>,
    options: { csrfToken?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const form = new URLSearchParams();
    const token = options.csrfToken === undefined ? csrfTokenIn(this.lastPage) : options.csrfToken;
    if (token !== null && token !== undefined) form.append('csrf_token', token);
    for (const [name, value] of Object.entries(fields)) {
      for (const item of Array.isArray(value) ? value : [value]) form.append(name, item);
    }
    return this.#remember(
      await this.km.send({
        hostname: this.hostname,
        method: 'POST',
        path,
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: this.origin,
          ...(this.cookie ? { Cookie: this.cookie } : {}),
          ...options.headers,
        },
        body: form.toString(),
        http2: this.http2,
      }),
    );
  }

  async signIn(email: string, password: string): Promise<Reply> {
    await this.get('/sign-in');
    return this.post('/sign-in', { email, password });
  }

  #remember(reply: Reply): Reply {
    const setCookie = reply.headers['set-cookie']?.[0];
    if (setCookie) {
      const pair = setCookie.split(';', 1)[0] ?? '';
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    if (reply.body) this.lastPage = reply.body;
    return reply;
  }
}

export function csrfTokenIn(html: string): string | undefined {
  return /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
}

/** The fixture user of `tenant` with `role` (passwords are public test values). */
export function fixtureUser(
  fixtures: Fixtures,
  tenant: string,
  role: 'admin' | 'member',
): { email: string; password: string } {
  const user = fixtures.tenants
    .find((candidate) => candidate.id === tenant)
    ?.users?.find((candidate) => candidate.role === role);
  if (!user) throw new Error(`The fixtures have no ${role} user of ${tenant}.`);
  return { email: user.email, password: user.password };
}
