// An exchange as the reports keep it: every key shown as its variable (conformance/redaction/shown-keys.ts),
// bodies bounded. Tests attach these to their results; the reporter makes exchanges.har of them
// and points each piece of evidence at its entry.
import type { Exchange } from './exchange.ts';
import type { KeyNamer } from '../redaction/shown-keys.ts';

export interface NameValue {
  name: string;
  value: string;
}

export interface RecordedExchange {
  id: string;
  /** ISO time the request started. */
  startedAt: string;
  durationMs: number;
  request: {
    method: string;
    url: string;
    headers: NameValue[];
    body?: string;
    note?: string;
    /** Absent: HTTP/1.1. */
    httpVersion?: 'HTTP/2';
  };
  /** Absent when no HTTP answer came. */
  response?: { status: number; headers: NameValue[]; body: string; bodyTruncated?: true };
  /** Why no HTTP answer came: refused, reset, TLS failure, time-out, only transient answers. */
  error?: string;
  /** A transient answer, not judged: the request was sent again after this many milliseconds. */
  retriedAfterMs?: number;
  /** Every try was transient: the status of the last one (the request has no other answer). */
  transientStatus?: number;
  /** A signal without an answer that said "not processed" (a refused stream, a graceful GOAWAY…). */
  signal?: string;
  /** The ids of the earlier tries of this request (their answers were transient), oldest first. */
  attempts?: string[];
  /** The server switched protocols first (`101 Switching Protocols (Upgrade: h2c)`); the answer came over the new one. */
  switchedProtocols?: string;
}

/** One line naming a request, as every message and report shows it: `GET url over HTTP/2 (note)`. */
export function requestLine(request: {
  method: string;
  url: string;
  protocol?: string;
  note?: string;
}): string {
  const over = request.protocol ? ` over ${request.protocol}` : '';
  return `${request.method} ${request.url}${over}${request.note ? ` (${request.note})` : ''}`;
}

/** Enough to read any answer of the API; a longer body is cut (and says so). */
const MAX_RECORDED_BODY = 64 * 1024;

export function recordExchange(exchange: Exchange, namer: KeyNamer): RecordedExchange {
  const { request } = exchange;
  const recorded: RecordedExchange = {
    id: request.id,
    startedAt: request.startedAt.toISOString(),
    durationMs: Math.max(0, Math.round(exchange.durationMs)),
    ...(exchange.retriedAfterMs !== undefined ? { retriedAfterMs: Math.round(exchange.retriedAfterMs) } : {}),
    ...(exchange.attempts ? { attempts: exchange.attempts.map((attempt) => attempt.id) } : {}),
    ...(exchange.switchedProtocols !== undefined ? { switchedProtocols: exchange.switchedProtocols } : {}),
    request: {
      method: request.method,
      url: namer.show(request.url),
      headers: request.headers.map(([name, value]) => ({ name, value: namer.show(value) })),
      ...(request.body !== undefined ? { body: namer.show(request.body) } : {}),
      ...(request.note !== undefined ? { note: namer.show(request.note) } : {}),
      ...(request.protocol === 'h2' ? { httpVersion: 'HTTP/2' as const } : {}),
    },
  };
  if (exchange.kind === 'failure')
    return {
      ...recorded,
      error: namer.show(exchange.error),
      ...(exchange.transient !== undefined ? { transientStatus: exchange.transient } : {}),
      ...(exchange.signal !== undefined ? { signal: exchange.signal } : {}),
    };
  const truncated = exchange.bodyText.length > MAX_RECORDED_BODY;
  return {
    ...recorded,
    response: {
      status: exchange.status,
      headers: Object.entries(exchange.headers).map(([name, value]) => ({ name, value: namer.show(value) })),
      body: namer.show(exchange.bodyText.slice(0, MAX_RECORDED_BODY)),
      ...(truncated ? { bodyTruncated: true as const } : {}),
    },
  };
}
