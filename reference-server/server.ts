// Starts the reference server: the HTTPS API for every tenant host, each tenant's administration
// panel and the admin API on the same listener (told apart by host), and the plain-HTTP listener
// that rejects everything. One process serves every tenant.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Fixtures } from '../schemas/generated/fixtures.ts';
import { logAnswered, noAccessLog, type AccessLogSink } from './http/access-log.ts';
import { apiError, type ApiResponse } from './api/errors.ts';
import { AdminTokenCheck } from './admin-api/admin-token.ts';
import {
  adminHostname,
  apiHostname,
  panelHostname,
  resolvePanelHost,
  type Environment,
} from './http/hosts.ts';
import { lockDataDir } from './store/data-dir-lock.ts';
import { openKeyStoreFile, type PersistedKeys } from './store/key-store-file.ts';
import { panelSniCallback } from './listeners/panel-certificates.ts';
import { TLS12_CIPHERS } from './listeners/tls-ciphers.ts';
import { SessionStore } from './panel/sessions.ts';
import { SignInThrottle } from './panel/sign-in-throttle.ts';
import { SignInTokens } from './panel/sign-in-token.ts';
import { UserDirectory } from './panel/users.ts';
import { createPlainHttpServer } from './listeners/plain-http.ts';
import { answerHttpsClientError } from './listeners/https-client-errors.ts';
import { closeServer, listen } from './listeners/listen.ts';
import { DEFAULT_LIMITS, type ServerLimits } from './listeners/listener-limits.ts';
import { connectionCloser, createSecureListener } from './listeners/secure-listener.ts';
import { isHttp2Response } from './http/http2-answer.ts';
import { handleApiRequest, type RequestFacts } from './api/request-pipeline.ts';
import { hostnameOfLines, hostPortMatches } from './http/field-lines.ts';
import { continueAllowed } from './api/expect-continue.ts';
import { writeRawError } from './api/response-writer.ts';
import { serveSite, siteOf, type SiteContexts } from './listeners/sites.ts';
import { TenantData } from './store/tenant-data.ts';
import { journalOf } from './journal/journal.ts';
import { CORRECT_STEPS, type ServerSteps } from './api/steps.ts';

export { DEFAULT_LIMITS, type ServerLimits } from './listeners/listener-limits.ts';

export interface ReferenceServerOptions {
  host: string;
  /** HTTPS port; 0 picks a free one. */
  httpsPort: number;
  /** Plain-HTTP port (rejects everything); 0 picks a free one, null disables the listener. */
  httpPort: number | null;
  domain: string;
  fixtures: Fixtures;
  certDir: string;
  limits?: ServerLimits;
  accessLog?: AccessLogSink;
  /** Where keys and their HMAC secret outlive a restart (see store/key-store-file.ts); absent: memory only. */
  dataDir?: string;
  /** The admin API's bearer token; absent: the admin API is off. */
  adminToken?: string;
  /** How often last-use times are written to the data directory. */
  usageFlushMs?: number;
  /** Entries the client journal keeps per tenant (journal/journal.ts); 0 turns it off. */
  journalCapacity?: number;
  /** Whether the HTTPS listener offers HTTP/2 (by ALPN, beside HTTP/1.1); default true. */
  http2?: boolean;
  /** Customers per page of GET /v1/customers (api/customer-pages.ts); absent: the whole list. */
  customersPageSize?: number;
  /**
   * Steps that replace the correct ones (api/steps.ts). Only the suite's self-test sets them, to
   * prove with a deliberately broken server that the suite fails (mutation/).
   */
  steps?: Partial<ServerSteps>;
}

export interface RunningReferenceServer {
  httpsPort: number;
  httpPort: number | null;
  caPath: string;
  certificatesReused: boolean;
  domain: string;
  /** `https://{tenant}.api.{domain}:{port}/v1` (or the sandbox host) of a tenant. */
  baseUrl(tenant: string, environment?: Environment): string;
  /** `http://…` of the same address, on the plain-HTTP listener. */
  plainHttpBaseUrl(tenant: string, environment?: Environment): string | undefined;
  /** `https://{tenant}.{domain}:{port}` (or `sandbox-{tenant}…`): the tenant's administration panel. */
  panelUrl(tenant: string, environment?: Environment): string;
  /** `https://admin.{domain}:{port}/v1`: the admin API. */
  adminBaseUrl: string;
  /**
   * The HTTPS listener's request handler, the one every request goes through: for measuring the
   * server's own work per request in one process (bench/own-work.ts), without TLS or sockets.
   */
  requestListener: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

export async function startReferenceServer(options: ReferenceServerOptions): Promise<RunningReferenceServer> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const log = options.accessLog ?? noAccessLog;
  // Taken before the store is read: a second server on the directory stops here, naming the first.
  const lock = options.dataDir ? lockDataDir(options.dataDir) : undefined;
  const steps: ServerSteps = { ...CORRECT_STEPS, ...options.steps };
  const { persisted, data, certificates, users } = await prepare(options, steps).catch((error: unknown) => {
    lock?.release();
    throw error;
  });
  const context = { domain: options.domain, data, steps, customersPageSize: options.customersPageSize };
  const journal = journalOf(options.journalCapacity, options.domain, data);
  const sites: SiteContexts = {
    panel: {
      domain: options.domain,
      data,
      users,
      sessions: new SessionStore(),
      journal,
      signInTokens: new SignInTokens(),
      throttle: new SignInThrottle(),
    },
    admin: {
      data,
      journal,
      token: options.adminToken === undefined ? undefined : new AdminTokenCheck(options.adminToken),
    },
    log,
  };

  const handle = (req: IncomingMessage, res: ServerResponse, hostname: string | undefined): void => {
    // Only the access log reads the time (a clock read per request otherwise).
    const started = log === noAccessLog ? 0 : performance.now();
    const facts: RequestFacts = {};
    let response: ApiResponse;
    try {
      response = handleApiRequest(req, hostname, context, facts);
    } catch {
      // A defect of ours must still get a JSON answer, never a stack trace or a hung socket.
      response = apiError('internal_error');
    }
    steps.writeResponse(res, response, 'https');
    logAnswered(log, { req, response, started, transport: 'https', facts });
    journal?.recordApi(req, hostname, facts, response);
  };
  // Panel and admin hosts go to their sites; every other request to the API pipeline, unchanged.
  const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    const hosts = steps.hostsOf(req);
    if (!hostPortMatches(hosts, req.socket.localPort)) {
      // RFC 9110 §7.4, like a host this listener does not serve: the request was meant for another port.
      const response = apiError('misdirected_request');
      steps.writeResponse(res, response, 'https');
      logAnswered(log, { req, response, started: performance.now(), transport: 'https' });
      return;
    }
    const hostname = hostnameOfLines(hosts);
    const site = siteOf(hostname, options.domain);
    if (site) void serveSite(req, res, site, sites);
    else handle(req, res, hostname);
  };
  const https = createSecureListener(
    {
      key: certificates.key,
      cert: certificates.cert,
      SNICallback: panelSniCallback(certificates, (hostname) => {
        const panel = resolvePanelHost(hostname, options.domain);
        return panel !== undefined && data.account(panel.tenant) !== undefined;
      }),
      minVersion: 'TLSv1.2',
      ciphers: TLS12_CIPHERS,
      honorCipherOrder: true,
    },
    limits,
    options.http2 ?? true,
    dispatch,
  );
  const httpsConnections = connectionCloser(https);
  // Without a listener Node answers `Expect: <anything but 100-continue>` with an empty 417.
  // RFC 9110 §10.1.1 lets a server ignore the expectation, so the request goes through the
  // pipeline like any other and gets its usual JSON answer.
  https.on('checkExpectation', dispatch);
  // Node would send `100 Continue` before anything is checked: only an authenticated request gets it.
  https.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (continueAllowed(req, context, sites)) res.writeContinue();
    // Answered without the body: a body the client may still send is not read, so the connection ends.
    else res.shouldKeepAlive = false;
    dispatch(req, res);
  });
  // Without a listener Node drops a CONNECT request's connection without any answer (HTTP/1.1)
  // or answers an empty 405 (HTTP/2, which hands over the stream's response instead of a socket).
  https.on('connect', (_req: IncomingMessage, socketOrResponse: Duplex | ServerResponse) => {
    if (isHttp2Response(socketOrResponse))
      steps.writeResponse(
        socketOrResponse as unknown as ServerResponse,
        apiError('method_not_allowed'),
        'https',
      );
    else writeRawError(socketOrResponse as Duplex, 'method_not_allowed', 'https');
  });
  https.on('clientError', answerHttpsClientError);
  // A TLS handshake that fails (plain HTTP on the TLS port, an old protocol version) only closes
  // that connection.
  https.on('tlsClientError', () => {});
  // A connection without SNI is a client fault the journal records even when no request follows.
  if (journal) https.on('secureConnection', (socket: TLSSocket) => journal.watchConnection(socket));

  const plain =
    options.httpPort === null
      ? null
      : createPlainHttpServer(
          limits,
          log,
          (req) => steps.plainHttpAnswer(req, context),
          journal && ((req, response) => journal.recordPlain(req, response)),
        );
  try {
    await listen(https, options.httpsPort, options.host);
    if (plain && options.httpPort !== null) await listen(plain, options.httpPort, options.host);
  } catch (error) {
    https.close();
    plain?.close();
    await persisted?.close();
    lock?.release();
    throw error;
  }
  const httpsPort = (https.address() as AddressInfo).port;
  const httpPort = plain ? (plain.address() as AddressInfo).port : null;

  return {
    httpsPort,
    httpPort,
    caPath: certificates.caPath,
    certificatesReused: certificates.reused,
    domain: options.domain,
    baseUrl: (tenant, environment = 'production') =>
      `https://${apiHostname(tenant, environment, options.domain)}:${httpsPort}/v1`,
    plainHttpBaseUrl: (tenant, environment = 'production') =>
      httpPort === null
        ? undefined
        : `http://${apiHostname(tenant, environment, options.domain)}:${httpPort}/v1`,
    panelUrl: (tenant, environment = 'production') =>
      `https://${panelHostname(tenant, environment, options.domain)}:${httpsPort}`,
    adminBaseUrl: `https://${adminHostname(options.domain)}:${httpsPort}/v1`,
    requestListener: dispatch,
    close: async () => {
      await Promise.all([
        closeServer(https, httpsConnections),
        plain ? closeServer(plain, connectionCloser(plain)) : Promise.resolve(),
      ]);
      // After the last request: its last use is written too.
      await persisted?.close();
      lock?.release();
    },
  };
}

/** The key store (from the data directory, if any), the certificates and the panel's users. */
async function prepare(options: ReferenceServerOptions, steps: ServerSteps) {
  const persisted: PersistedKeys | undefined = options.dataDir
    ? openKeyStoreFile(options.dataDir, { usageFlushMs: options.usageFlushMs })
    : undefined;
  try {
    const data = new TenantData(options.fixtures, persisted?.store);
    persisted?.startSaving();
    const certificates = await steps.certificates(options.certDir, options.domain);
    const users = await UserDirectory.fromFixtures(options.fixtures);
    return { persisted, data, certificates, users };
  } catch (error) {
    await persisted?.close();
    throw error;
  }
}
