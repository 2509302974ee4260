// exchanges.har: every exchange of a run in HTTP Archive 1.2, the format browser dev tools import
// (Network panel → Import HAR). Keys appear as their variable names, as in every report. Each
// entry names its rule in `comment` and carries the exchange id in `_id`, which the evidence of
// conformance.json and conformance.html points to. The preflight's requests, which reach the
// deployment before any rule, are entries too, named as the preflight's (PREFLIGHT).
import type { NameValue, RecordedExchange } from '../requests/exchange-record.ts';
import { STATUS_CODES } from 'node:http';

/**
 * What made the preflight's requests (deployment/preflight.ts): one keyless GET per declared URL,
 * before any rule, to learn whether it answers. Its entries name it in `_rule` and `comment`.
 */
export const PREFLIGHT = 'the preflight (before the rules: does each declared URL answer HTTP?)';

export interface RunExchange {
  /** The rule whose test made it, or what else did (learning the tenants' data, the preflight). */
  madeBy: string;
  exchange: RecordedExchange;
  /** The protocol label of the rule project whose test recorded it (the run's checker fails a rule over it). */
  over?: string;
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    pages: [];
    entries: HarEntry[];
    comment: string;
  };
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: [];
    headers: NameValue[];
    queryString: NameValue[];
    postData?: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: [];
    headers: NameValue[];
    content: { size: number; mimeType: string; text?: string; comment?: string };
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment: string;
  _id: string;
  _rule: string;
}

export function buildHar(exchanges: readonly RunExchange[], creator: { name: string; version: string }): Har {
  const entries = [...exchanges]
    .sort((a, b) => a.exchange.startedAt.localeCompare(b.exchange.startedAt))
    .map(harEntry);
  return {
    log: {
      version: '1.2',
      creator,
      pages: [],
      entries,
      comment:
        "Every exchange of a conformance run, the preflight's keyless requests among them. Keys are shown as the names of their environment variables; request headers are every field the suite's client put on the wire (over HTTP/2, the first Host is the :authority).",
    },
  };
}

function harEntry({ madeBy, exchange }: RunExchange): HarEntry {
  const { request, response } = exchange;
  const header = (headers: readonly NameValue[], name: string): string | undefined =>
    headers.find((candidate) => candidate.name.toLowerCase() === name)?.value;
  const responseType = response ? (header(response.headers, 'content-type') ?? '') : '';
  return {
    startedDateTime: exchange.startedAt,
    time: exchange.durationMs,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: request.httpVersion ?? 'HTTP/1.1',
      cookies: [],
      headers: request.headers,
      queryString: queryOf(request.url),
      ...(request.body !== undefined
        ? {
            postData: {
              mimeType: header(request.headers, 'content-type') ?? 'application/octet-stream',
              text: request.body,
            },
          }
        : {}),
      headersSize: -1,
      bodySize: request.body === undefined ? 0 : Buffer.byteLength(request.body),
    },
    response: response
      ? {
          status: response.status,
          statusText: STATUS_CODES[response.status] ?? '',
          httpVersion: request.httpVersion ?? 'HTTP/1.1',
          cookies: [],
          headers: response.headers,
          content: {
            size: Buffer.byteLength(response.body),
            mimeType: responseType || 'application/octet-stream',
            text: response.body,
            ...(response.bodyTruncated ? { comment: 'truncated' } : {}),
          },
          redirectURL: header(response.headers, 'location') ?? '',
          headersSize: -1,
          bodySize: Buffer.byteLength(response.body),
        }
      : {
          // No HTTP answer: HAR has no field for that; status 0 and _error, as browsers write it.
          status: 0,
          statusText: '',
          httpVersion: '',
          cookies: [],
          headers: [],
          content: { size: 0, mimeType: 'x-unknown' },
          redirectURL: '',
          headersSize: -1,
          bodySize: -1,
          _error: exchange.error ?? 'no response',
        },
    cache: {},
    timings: { send: 0, wait: exchange.durationMs, receive: 0 },
    comment: [
      request.note ? `${madeBy}: ${request.note}` : madeBy,
      ...(exchange.switchedProtocols
        ? [`answered ${exchange.switchedProtocols} first; the answer below came over HTTP/2`]
        : []),
      ...triesOf(exchange),
    ].join('; '),
    _id: exchange.id,
    _rule: madeBy,
  };
}

/** What the entry's comment says of retries: a transient answer sent again, or a later try. */
function triesOf(exchange: RecordedExchange): string[] {
  const said: string[] = [];
  const what = exchange.signal ? `transient signal (${exchange.signal})` : 'transient answer';
  if (exchange.retriedAfterMs !== undefined)
    said.push(`${what}, not judged: sent again after ${exchange.retriedAfterMs} ms`);
  else if (exchange.signal) said.push(`${what} on the last try, not judged`);
  if (exchange.attempts?.length)
    said.push(`try ${exchange.attempts.length + 1} (earlier tries: ${exchange.attempts.join(', ')})`);
  return said;
}

function queryOf(url: string): NameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}
