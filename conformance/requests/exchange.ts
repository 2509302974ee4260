// What a probe sent and got back, in the one shape every check and every report reads.
import { randomUUID } from 'node:crypto';

export interface RequestSummary {
  /** Names the exchange in exchanges.har and in the evidence that points to it. */
  id: string;
  startedAt: Date;
  method: string;
  url: string;
  /**
   * As sent, in order, repeats included. Values may be keys: they reach a report only through
   * the KeyNamer (conformance/redaction/shown-keys.ts), which shows each key as its variable name.
   */
  headers: [string, string][];
  body?: string;
  /** What makes this request special, e.g. "Host: globex… over a connection for acme…". */
  note?: string;
  /** Sent over HTTP/2; absent: HTTP/1.1 (requests/protocols.ts). */
  protocol?: 'h2';
  /**
   * The rule takes a refusal of this request as a pass (plain HTTP; a host that should not
   * exist), so getting no answer here says nothing of whether the target is still up.
   */
  refusalExpected?: boolean;
}

interface Timed {
  request: RequestSummary;
  /** From the request's start to the answer's last byte (or the failure). */
  durationMs: number;
  /**
   * This answer was transient (429, 502, 503, 504) and not judged: the same request was sent
   * again after this many milliseconds (requests/send.ts).
   */
  retriedAfterMs?: number;
  /** The earlier, transient answers to the same request, oldest first; absent on a first try. */
  attempts?: Attempt[];
  /**
   * The server switched protocols (`101`, `Upgrade: h2c`) before it answered: what follows is the
   * answer (or its absence) read over the new protocol (h2c-upgrade.ts). Says what the switch was.
   */
  switchedProtocols?: string;
}

/**
 * What a front says below HTTP that means "not processed, send it again" (RFC 9113 §8.7, §6.8;
 * RFC 9110 §9.2.2): a stream refused, a connection shut down gracefully before the answer, a
 * front telling the client to calm down, an idle keep-alive connection closed as the request left.
 * A reset with another code (PROTOCOL_ERROR to a malformed request) is the target's refusal.
 */
export type TransientSignal =
  | 'RST_STREAM REFUSED_STREAM'
  | 'RST_STREAM ENHANCE_YOUR_CALM'
  | 'GOAWAY NO_ERROR'
  | 'GOAWAY ENHANCE_YOUR_CALM'
  | 'connection closed before the answer';

/** An earlier try of a request whose answer was transient. */
export interface Attempt {
  /** Its own exchange id (in exchanges.har). */
  id: string;
  /** The transient status (429, 502, 503, 504), or else the signal without an answer. */
  status?: number;
  signal?: TransientSignal;
  /** How long the suite waited before the next try. */
  retriedAfterMs: number;
}

export interface ResponseExchange extends Timed {
  kind: 'response';
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  bodyText: string;
}

/** No HTTP answer at all: refused, reset, TLS failure, time-out. */
export interface FailedExchange extends Timed {
  kind: 'failure';
  error: string;
  /** Never sent: the target had stopped answering (answer-watch.ts). Never a refusal. */
  notSent?: true;
  /**
   * Every try got a transient answer (429, 502, 503, 504) until the retries or the run's retry
   * budget ran out: a front answered, not the target. Never a refusal either. The last status.
   */
  transient?: number;
  /**
   * No answer, but a front's signal that the request was not processed (transient.ts): a refused
   * stream, a graceful GOAWAY, ENHANCE_YOUR_CALM, a keep-alive connection closed before the
   * answer. Sent again like a 503; on the last try, never a refusal either.
   */
  signal?: TransientSignal;
}

export type Exchange = ResponseExchange | FailedExchange;

/** Told of every exchange a client completes (the run's HAR is made of them). */
export type ExchangeListener = (exchange: Exchange) => void;

export function startRequest(
  method: string,
  url: string,
  headers: [string, string][],
  extra: { body?: string; note?: string; refusalExpected?: boolean; protocol?: 'h1' | 'h2' } = {},
): RequestSummary {
  return {
    id: randomUUID(),
    startedAt: new Date(),
    method,
    url,
    headers,
    ...(extra.body !== undefined && extra.body !== '' ? { body: extra.body } : {}),
    ...(extra.note !== undefined ? { note: extra.note } : {}),
    ...(extra.refusalExpected ? { refusalExpected: true } : {}),
    ...(extra.protocol === 'h2' ? { protocol: 'h2' as const } : {}),
  };
}

/** The same request again, as a new exchange of its own (its own id and start). */
export function retryOf(request: RequestSummary): RequestSummary {
  return { ...request, id: randomUUID(), startedAt: new Date() };
}

/** A failure that says something about the target: it refused, reset or timed out. */
export function isRefusal(exchange: FailedExchange): boolean {
  return !exchange.notSent && !onlyTransient(exchange);
}

/** Every try got a transient answer or signal: a front answered, not the target. */
export function onlyTransient(exchange: FailedExchange): boolean {
  return exchange.transient !== undefined || exchange.signal !== undefined;
}

/**
 * Reads an answer's body, keeping its first `maxBytes` (the rest is read and dropped), and tells
 * `done` the exchange once it has ended: the same for an HTTP/1.1 response and an HTTP/2 stream.
 */
export function readAnswer(
  body: NodeJS.ReadableStream,
  maxBytes: number,
  done: (bodyText: string) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  body.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  });
  body.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
}

export function elapsedSince(request: RequestSummary): number {
  return Date.now() - request.startedAt.getTime();
}

export function jsonBody(exchange: ResponseExchange): unknown {
  try {
    return JSON.parse(exchange.bodyText) as unknown;
  } catch {
    return undefined;
  }
}

/** `error.code` of a spec §7 error body, if the body is one. */
export function errorCode(exchange: ResponseExchange): string | undefined {
  const body = jsonBody(exchange) as { error?: { code?: unknown } } | undefined;
  return typeof body?.error?.code === 'string' ? body.error.code : undefined;
}

export function isJsonContentType(exchange: ResponseExchange): boolean {
  const type = (exchange.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}
