// The HTTPS listener: one TLS port that speaks HTTP/2 or HTTP/1.1, chosen by ALPN, both handed to
// the same request handler. Node's HTTP/2 compatibility objects (Http2ServerRequest/Response) carry
// every field the handler reads — `rawHeaders` (pseudo-header fields included), `url`, `method`,
// `stream` (HTTP/2's alone), `socket.localPort`, `socket.servername`, `socket.remoteAddress`, `writeHead`,
// `end`, `writeContinue` — so no decision of the API, the panel or the admin API has an HTTP/2
// copy; field-lines.ts reads `:authority` where HTTP/1.1 has `Host`.
// With HTTP/2 off (`--http2 off`) the listener is node:https's and offers HTTP/1.1 alone.
// Its TLS options and the listener events Node would otherwise answer on its own are set here too.
import type { Duplex } from 'node:stream';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import {
  constants,
  createSecureServer,
  type Http2SecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import { countEveryHeaderLine, limitOptions, type ServerLimits } from './listener-limits.ts';
import { overHttp2 } from '../http/field-lines.ts';
import { panelSniCallback } from './panel-certificates.ts';
import { TLS12_CIPHERS } from './tls-ciphers.ts';
import type { ServerCertificates } from './certificates.ts';

export type SecureListener = HttpsServer | Http2SecureServer;

/** What one HTTP/2 connection may hold at once: streams, and HPACK-decoded header bytes per request. */
export const HTTP2_MAX_CONCURRENT_STREAMS = 100;
/**
 * RFC 7541 §4.1 counts 32 bytes per field on top of its name and value: a header list within
 * maxHeaderBytes holds at most this many fields (and Node's default, 128, would refuse a list the
 * HTTP/1.1 listener accepts).
 */
const HPACK_FIELD_OVERHEAD = 32;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * What a listener hands on (front-door/front-door.ts), which answers all of it: a listener writes
 * no answer of its own, so that every answer is written, logged and journaled in one place.
 */
export interface ListenerHandlers {
  /** Every request, whatever the event that carried it. */
  request: Handler;
  /**
   * A CONNECT request: over HTTP/1.1 with its socket (Node hands over no response), over HTTP/2
   * with its stream's response.
   */
  connect: (req: IncomingMessage, socketOrResponse: Duplex | ServerResponse) => void;
  /** What Node's parser, its time limits or TLS reported before any request handler ran. */
  clientError: (error: NodeJS.ErrnoException, socket: Duplex) => void;
}

/** What the HTTPS listener hands on, beyond what every listener does. */
export interface SecureListenerHandlers extends ListenerHandlers {
  /** A request that waits for `100 Continue` before it sends its body. */
  checkContinue: Handler;
  /** A TLS connection, once its handshake is done. */
  secureConnection?: ((socket: TLSSocket) => void) | undefined;
}

export interface SecureListenerOptions {
  certificates: ServerCertificates;
  /** Whether a (lower-case) name is a served tenant's panel host, which has a certificate of its own. */
  isServedPanelHost: (hostname: string) => boolean;
  limits: ServerLimits;
  /** Whether HTTP/2 is offered (by ALPN, beside HTTP/1.1). */
  http2: boolean;
}

export function createSecureListener(
  options: SecureListenerOptions,
  handlers: SecureListenerHandlers,
): SecureListener {
  const { certificates, limits } = options;
  const server = listenerOf(
    {
      key: certificates.key,
      cert: certificates.cert,
      SNICallback: panelSniCallback(certificates, options.isServedPanelHost),
      minVersion: 'TLSv1.2',
      ciphers: TLS12_CIPHERS,
      honorCipherOrder: true,
    },
    limits,
    options.http2,
    handlers.request,
  );
  answerEvents(server, handlers);
  return server;
}

/** The listener events Node answers on its own when nobody listens, answered as the API would. */
function answerEvents(server: SecureListener, handlers: SecureListenerHandlers): void {
  // Without a listener Node answers `Expect: <anything but 100-continue>` with an empty 417.
  // RFC 9110 §10.1.1 lets a server ignore the expectation, so the request goes through like any
  // other and gets its usual answer.
  server.on('checkExpectation', handlers.request);
  // Node would send `100 Continue` before anything is checked: the front door decides.
  server.on('checkContinue', handlers.checkContinue);
  // Without a listener Node drops a CONNECT request's connection without any answer (HTTP/1.1)
  // or answers an empty 405 (HTTP/2, which hands over the stream's response instead of a socket).
  server.on('connect', handlers.connect);
  server.on('clientError', handlers.clientError);
  // A TLS handshake that fails (plain HTTP on the TLS port, an old protocol version) only closes
  // that connection.
  server.on('tlsClientError', () => {});
  if (handlers.secureConnection) server.on('secureConnection', handlers.secureConnection);
}

function listenerOf(
  tls: SecureContextOptions & { SNICallback: unknown; minVersion: string; honorCipherOrder: boolean },
  limits: ServerLimits,
  http2: boolean,
  handler: Handler,
): SecureListener {
  const options = {
    ...tls,
    ...limitOptions(limits),
    // A connection that never completes TLS (Node's default allows 120 s) is held no longer
    // than one that never completes its headers.
    handshakeTimeout: limits.headersTimeoutMs,
  };
  if (!http2) {
    const server = createHttpsServer(options as Parameters<typeof createHttpsServer>[0], handler);
    countEveryHeaderLine(server);
    return server;
  }
  const server = createSecureServer(
    {
      ...(options as Parameters<typeof createSecureServer>[0]),
      allowHTTP1: true,
      maxHeaderListPairs: Math.ceil(limits.maxHeaderBytes / HPACK_FIELD_OVERHEAD),
      settings: {
        maxConcurrentStreams: HTTP2_MAX_CONCURRENT_STREAMS,
        maxHeaderListSize: limits.maxHeaderBytes,
      },
    },
    (req: Http2ServerRequest | IncomingMessage, res: Http2ServerResponse | ServerResponse) => {
      // A stream reset by limitHeaderList is not answered (HTTP/1.1 requests have no stream).
      if (overHttp2(req as IncomingMessage) && (req as Http2ServerRequest).stream.closed) return;
      // The compatibility objects stand in for node:http's (see the top of this file).
      handler(req as IncomingMessage, res as ServerResponse);
    },
  );
  keepHttp1Limits(server, limits);
  limitHeaderList(server, limits.maxHeaderBytes);
  limitStreamLifetime(server, limits.requestTimeoutMs);
  closeIdleSessions(server, limits.keepAliveTimeoutMs);
  return server;
}

/**
 * Node's HTTP/2 server takes its HTTP/1.1 connections' limits from properties, not from the options
 * node:https reads, and sets its own defaults (60 s for the headers, checked every 30 s): the limits
 * are set here so that an HTTP/1.1 client meets the same ones whichever listener serves it.
 * Set before `listen`, which starts the checking timer.
 */
function keepHttp1Limits(server: Http2SecureServer, limits: ServerLimits): void {
  const http1 = limitOptions(limits);
  Object.assign(server, {
    maxHeaderSize: http1.maxHeaderSize,
    headersTimeout: http1.headersTimeout,
    requestTimeout: http1.requestTimeout,
    keepAliveTimeout: http1.keepAliveTimeout,
    connectionsCheckingInterval: http1.connectionsCheckingInterval,
    requireHostHeader: http1.requireHostHeader,
    maxHeadersCount: 0,
  });
}

/**
 * A request whose header list is larger than the limit (counted as SETTINGS_MAX_HEADER_LIST_SIZE
 * counts it, RFC 9113 §6.5.2) is reset with ENHANCE_YOUR_CALM before the handler sees it. Node
 * does the same, but only once the client has acknowledged the server's SETTINGS: until then its
 * limit is nghttp2's default, none, and a connection's first requests — sent with the preface,
 * before any acknowledgement — reached the handler with header lists of 100 KiB and more.
 */
function limitHeaderList(server: Http2SecureServer, maxBytes: number): void {
  server.prependListener(
    'stream',
    (stream: ServerHttp2Stream, _headers: unknown, _flags: number, rawHeaders: string[]) => {
      let bytes = 0;
      for (const field of rawHeaders) bytes += field.length;
      if (bytes + (rawHeaders.length / 2) * HPACK_FIELD_OVERHEAD > maxBytes)
        stream.close(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    },
  );
}

/**
 * A stream still open after the request time limit is reset (CANCEL), whatever it waits for. A
 * client that opens its 100 streams and never reads their answers (a flow-control window of 0) held
 * them, and the connection, for ever, about 1 MiB a connection: the graceful close of an idle
 * session waits for every open stream, and PINGs keep a session from being idle. Node's HTTP/2
 * server has no counterpart of HTTP/1.1's request time limit.
 */
function limitStreamLifetime(server: Http2SecureServer, lifetimeMs: number): void {
  server.on('stream', (stream: ServerHttp2Stream) => {
    const deadline = setTimeout(() => stream.close(constants.NGHTTP2_CANCEL), lifetimeMs);
    deadline.unref();
    stream.once('close', () => clearTimeout(deadline));
  });
}

/**
 * An HTTP/2 connection with no frame for the keep-alive time is closed (GOAWAY, then the socket):
 * HTTP/1.1's idle connections are, and Node keeps an idle HTTP/2 session open for ever.
 */
function closeIdleSessions(server: Http2SecureServer, idleMs: number): void {
  server.on('session', (session: ServerHttp2Session) => {
    session.setTimeout(idleMs, () => session.close());
  });
}

/**
 * How to close a listener's connections at shut-down (listen.ts `closeServer`): node:https can do
 * both itself; the HTTP/2 listener's sessions are closed gracefully (GOAWAY: requests in flight
 * finish), and every connection it still holds is destroyed at the end of the grace time.
 */
export function connectionCloser(server: SecureListener | HttpServer): ConnectionCloser {
  if (!('closeAllConnections' in server)) return http2ConnectionCloser(server);
  return { closeIdle: () => server.closeIdleConnections(), closeAll: () => server.closeAllConnections() };
}

export interface ConnectionCloser {
  closeIdle(): void;
  closeAll(): void;
}

function http2ConnectionCloser(server: Http2SecureServer): ConnectionCloser {
  const sockets = new Set<TLSSocket>();
  const sessions = new Set<ServerHttp2Session>();
  server.on('secureConnection', (socket: TLSSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  return {
    closeIdle: () => {
      // Node's HTTP/1.1 half of the server has this one.
      (server as unknown as { closeIdleConnections(): void }).closeIdleConnections();
      for (const session of sessions) session.close();
    },
    closeAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}
