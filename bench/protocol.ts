// The messages between bench/run.ts and its child processes (the server under load and the load
// generators), and the shape of what each measurement returns.
import type { ScaleSpec } from './generate-fixtures.ts';
import type { ServerLimits } from '../reference-server/server.ts';

/**
 * How the reference server's code is loaded: `compiled` is dist/ (`npm run build`, what the installed
 * `tenant-auth-conformance serve` runs), `tsx` the TypeScript sources (what `npm start` runs in a clone).
 */
export type ServerBuild = 'compiled' | 'tsx';

export type ServerConfig =
  | {
      kind: 'reference';
      certDir: string;
      scale?: ScaleSpec;
      build?: ServerBuild;
      /** Limits other than the defaults (the hostile-input tests shorten time limits). */
      limits?: Partial<ServerLimits>;
    }
  | {
      kind: 'bare';
      certDir: string;
      tenantIds: readonly string[];
      /** node:http2's secure server (HTTP/2 by ALPN) instead of node:https's. */
      http2?: boolean;
    };

/** An answer as the bare baseline writes it: status line, header fields in order, body. */
export interface FixedResponse {
  status: number;
  statusMessage: string;
  /** The header fields, in order and spelling, but those Node adds itself (Date, Connection, Keep-Alive). */
  headers: [string, string][];
  body: string;
}

export type ServerMessage =
  { type: 'usage' } | { type: 'respond'; response: FixedResponse } | { type: 'stop' };

export type ServerReply =
  | { type: 'ready'; port: number; startMs: number; fixturesMs?: number; serverStartMs?: number }
  | { type: 'usage'; rss: number; heapUsed: number; cpuMicros: number }
  | { type: 'responding' }
  | { type: 'failed'; message: string };

/** One keep-alive load run of autocannon. */
export interface LoadRequest {
  port: number;
  servername: string;
  /** Request headers, `Host` and `Authorization` included; never printed. */
  headers: Record<string, string>;
  path: string;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  expectedStatus: number;
  expectedBody: string;
}

/**
 * One keep-alive load run over HTTP/2 (bench/http2-load-process.ts): `connections` sessions, each
 * keeping `streamsPerSession` requests in flight; `headers.host` is sent as `:authority`.
 */
export interface Http2LoadRequest extends LoadRequest {
  streamsPerSession: number;
  /** The CA every session's certificate is verified against. */
  ca: string;
}

/**
 * The HTTP/2 rows' load: 4 sessions × 25 streams, 100 requests in flight, the reference's limit
 * per session (HTTP2_MAX_CONCURRENT_STREAMS, 100) never reached, as autocannon's 10 connections
 * never queue.
 */
export const HTTP2_KEEP_ALIVE = { sessions: 4, streamsPerSession: 25 } as const;

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Answers with another status or body than expected, connection errors and time-outs. */
  wrongAnswers: number;
  errors: number;
  /** Bytes on the wire per answer (autocannon); over HTTP/2 the body's bytes alone. */
  bytesPerAnswer: number;
}

/** New TLS connections, one request each (`Connection: close`). */
export interface HandshakeRequest {
  port: number;
  servername: string;
  request: string;
  ca: string;
  concurrency: number;
  durationMs: number;
  resumeSessions: boolean;
}

export interface HandshakeResult {
  connections: number;
  connectionsPerSecond: number;
  resumedShare: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  failures: number;
}

export type { ScaleSpec };

/** In a load-generator child: runs `measure` for each request of the parent and sends the result. */
export function answerMeasurements<Request, Result>(measure: (request: Request) => Promise<Result>): void {
  process.on('message', (request: Request) => {
    void measure(request).then(
      (result) => process.send?.({ type: 'result', result }),
      (error: unknown) =>
        process.send?.({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
  });
}
