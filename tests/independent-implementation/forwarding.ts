// What every front of this folder does to pass a request on to an upstream HTTPS server: the
// end-to-end headers go on unchanged (repeats and order kept), the hop-by-hop ones are dropped
// both ways, and an upstream that fails before it answers becomes a 502.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpsRequest, type Agent } from 'node:https';

/** RFC 9110 §7.6.1: these describe one connection and are never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

const UPSTREAM_TIMEOUT_MS = 10_000;

/** `rawHeaders` without the hop-by-hop ones, repeats and order kept (a flat name, value list). */
export function endToEnd(rawHeaders: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] ?? '';
    if (!HOP_BY_HOP.has(name.toLowerCase())) kept.push(name, rawHeaders[index + 1] ?? '');
  }
  return kept;
}

function badGateway(response: ServerResponse): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(502, { 'Content-Type': 'text/plain' }).end('502 Bad Gateway\n');
}

export interface Upstream {
  port: number;
  /** PEM of the CA the upstream's certificate chains to. */
  ca: string;
  /** Keeps upstream connections open between requests; none: one connection per request. */
  agent?: Agent;
}

export interface Forwarding {
  /** The TLS SNI of the upstream connection. */
  servername: string;
  /** The request's header lines as sent upstream (a flat name, value list). */
  headers: string[];
  /** Added to the answer passed back (a front's own headers). */
  answerHeaders?: Readonly<Record<string, string>>;
  /** Told of the upstream's answer as it is passed back, with the header lines sent on. */
  onAnswer?: (answer: IncomingMessage, rawHeaders: string[]) => void;
}

/** Passes `incoming` on to the upstream on 127.0.0.1 and its answer back, bounded by 10 s. */
export function forward(
  incoming: IncomingMessage,
  response: ServerResponse,
  upstream: Upstream,
  forwarding: Forwarding,
): void {
  const outgoing = httpsRequest(
    {
      host: '127.0.0.1',
      port: upstream.port,
      servername: forwarding.servername,
      ca: upstream.ca,
      method: incoming.method,
      path: incoming.url,
      headers: forwarding.headers,
      setHost: false,
      agent: upstream.agent ?? false,
      timeout: UPSTREAM_TIMEOUT_MS,
    },
    (answer) => {
      const added = Object.entries(forwarding.answerHeaders ?? {}).flat();
      const rawHeaders = [...endToEnd(answer.rawHeaders), ...added];
      response.writeHead(answer.statusCode ?? 502, rawHeaders);
      answer.pipe(response);
      forwarding.onAnswer?.(answer, rawHeaders);
    },
  );
  outgoing.on('timeout', () => outgoing.destroy(new Error('upstream timed out')));
  outgoing.on('error', () => badGateway(response));
  incoming.pipe(outgoing);
}
