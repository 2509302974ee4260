// The preflight's one keyless GET per declared base URL (preflight.ts), recorded as every other
// exchange of a run is (requests/exchange-record.ts): the header fields exactly as they went on the
// wire, the status and the header fields of the answer. Its body is not read: the preflight asks
// only whether the URL answers HTTP. exchanges.har lists these requests with the rules' own, so
// that the HAR of a run holds every request the deployment received.
import { randomUUID } from 'node:crypto';
import type { NameValue, RecordedExchange } from '../requests/exchange-record.ts';

/** What the HAR says of each preflight request, beside its maker (report/har.ts `comment`). */
export const PREFLIGHT_NOTE =
  'keyless; only the status and the header fields of the answer are read, not its body';

/** What was sent, and when: filled in as the request leaves. */
export interface PreflightRequest {
  url: string;
  /** Every field, in the order and spelling sent (over HTTP/2 the `:authority` as `host`). */
  headers: NameValue[];
  protocol: 'h1' | 'h2';
  startedAt: Date;
}

/** What came back: a status and header fields, or else why nothing did. */
export type PreflightAnswer = { status: number; headers: NameValue[] } | { error: string; signal?: string };

export function recordPreflightExchange(
  request: PreflightRequest,
  answer: PreflightAnswer,
): RecordedExchange {
  const recorded: RecordedExchange = {
    id: randomUUID(),
    startedAt: request.startedAt.toISOString(),
    durationMs: Math.max(0, Math.round(Date.now() - request.startedAt.getTime())),
    request: {
      method: 'GET',
      url: request.url,
      headers: request.headers,
      note: PREFLIGHT_NOTE,
      ...(request.protocol === 'h2' ? { httpVersion: 'HTTP/2' as const } : {}),
    },
  };
  if ('error' in answer)
    return {
      ...recorded,
      error: answer.error,
      ...(answer.signal !== undefined ? { signal: answer.signal } : {}),
    };
  // The body was not read: an empty one, marked as cut (the HAR says "truncated").
  return {
    ...recorded,
    response: { status: answer.status, headers: answer.headers, body: '', bodyTruncated: true },
  };
}

/**
 * The status and header fields of an HTTP/1.1 answer read so far (latin1 text): the status line
 * and every complete header line after it, up to the blank line. Undefined before a status line.
 */
export function http1Head(
  received: string,
): { status: number; headers: NameValue[]; complete: boolean } | undefined {
  const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(received);
  if (!statusLine) return undefined;
  const end = received.indexOf('\r\n\r\n');
  const head = end === -1 ? received : received.slice(0, end);
  const lines = head.split('\r\n').slice(1);
  // Without the blank line, the last line may be half received: only whole lines are kept.
  const whole = end === -1 ? lines.slice(0, -1) : lines;
  const headers = whole.flatMap((line): NameValue[] => {
    const colon = line.indexOf(':');
    return colon <= 0 ? [] : [{ name: line.slice(0, colon), value: line.slice(colon + 1).trim() }];
  });
  return { status: Number(statusLine[1]), headers, complete: end !== -1 };
}
