// One JSON line per request. It names the key by its public id only: the key itself never
// reaches the log, whatever the request carried.
import type { IncomingMessage } from 'node:http';
import type { ApiResponse } from './errors.ts';
import type { RequestFacts } from './request-pipeline.ts';

/**
 * A path segment that could carry a key in any spelling: with the key prefix, percent-encoded
 * (`mbk%5Fprod_…` or every character escaped would slip past a prefix match), or long enough to be
 * a key's random part without its prefix. Such a segment is logged as `[redacted]`.
 */
const SECRET_LIKE_SEGMENT = /mbk_|%[0-9A-Fa-f]{2}|[^/]{24}/i;

export interface AccessLogEntry extends RequestFacts {
  time: string;
  method: string;
  path: string;
  status: number;
  errorCode?: string;
  durationMs: number;
  transport: 'https' | 'http';
}

export type AccessLogSink = (entry: AccessLogEntry) => void;

export const noAccessLog: AccessLogSink = () => {};

export function jsonLinesAccessLog(write: (line: string) => void): AccessLogSink {
  return (entry) => write(`${JSON.stringify(entry)}\n`);
}

/**
 * The path of the request without its query string: a client that wrongly puts a key in a URL
 * parameter (spec §5 forbids it) must not get that key written to the log.
 */
export function loggablePath(target: string | undefined): string {
  // A key pasted into the path itself is masked, for the same reason.
  const path = ((target ?? '').split(/[?#]/, 1)[0] ?? '')
    .split('/')
    .map((segment) => (SECRET_LIKE_SEGMENT.test(segment) ? '[redacted]' : segment))
    .join('/');
  return path.length > 256 ? `${path.slice(0, 256)}…` : path;
}

/** What one answered request contributes to the log. */
export interface AnsweredRequest {
  req: IncomingMessage;
  /** The answer's status and error code (an API, panel or admin answer alike). */
  response: Pick<ApiResponse, 'status'> & { errorCode?: string };
  /** `performance.now()` when the request arrived. */
  started: number;
  transport: AccessLogEntry['transport'];
  facts?: RequestFacts;
}

/** Logs one answered request. With the log off nothing is built: a timestamp and the redacted
 * path cost more than the pipeline's own checks. */
export function logAnswered(log: AccessLogSink, answered: AnsweredRequest): void {
  if (log === noAccessLog) return;
  const { req, response, started, transport, facts } = answered;
  log({
    time: new Date().toISOString(),
    ...facts,
    method: req.method ?? '',
    path: loggablePath(req.url),
    status: response.status,
    errorCode: response.errorCode,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    transport,
  });
}
