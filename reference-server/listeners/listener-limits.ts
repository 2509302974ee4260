// The limits every listener of the reference server keeps, HTTPS and plain HTTP alike, and the
// Node options that enforce them: one place, so that the two listeners cannot drift apart.
import type { Server } from 'node:http';

export interface ServerLimits {
  /** Total size of the request line and headers; larger requests get 431. */
  maxHeaderBytes: number;
  /** Time to receive the complete headers; a slower client gets 408. */
  headersTimeoutMs: number;
  /** Time to receive the complete request. */
  requestTimeoutMs: number;
  /** Time an idle keep-alive connection is kept open. */
  keepAliveTimeoutMs: number;
}

/** How often the time limits are enforced (Node's `connectionsCheckingInterval`). */
export const CONNECTIONS_CHECK_MS = 1_000;

export const DEFAULT_LIMITS: ServerLimits = {
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

/** The options of `createServer` (node:http and node:https) that carry the limits. */
export function limitOptions(limits: ServerLimits) {
  return {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node enforces the time limits above only when it checks its connections, every 30 s by
    // default: a client trickling its headers would be served long after headersTimeout, and an
    // idle connection held that long. Checking every second keeps the limits as documented.
    connectionsCheckingInterval: Math.min(CONNECTIONS_CHECK_MS, limits.headersTimeoutMs),
    // Node would answer an HTTP/1.1 request without `Host` itself, with an empty 400; the
    // pipeline answers it instead (400 `bad_request`, JSON like every other error).
    requireHostHeader: false,
  };
}

/**
 * Node keeps only the first 1 000 header lines by default and drops the rest unseen: a second
 * `Authorization` or `Host` behind 1 000 short lines, well within the size limit, escaped the
 * duplicate checks. With no count limit every line counts; maxHeaderBytes bounds them.
 */
export function countEveryHeaderLine(server: Server): void {
  server.maxHeadersCount = 0;
}
