// One JSON line per request. It names the key by its public id only: the key itself never
// reaches the log, whatever the request carried.
import type { RequestFacts } from './request-pipeline.ts';

const KEY_LIKE = /mbk_[A-Za-z0-9_]*/g;

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
  // A key pasted into the path itself is masked by its format, for the same reason.
  const path = ((target ?? '').split(/[?#]/, 1)[0] ?? '').replace(KEY_LIKE, '[redacted]');
  return path.length > 256 ? `${path.slice(0, 256)}…` : path;
}
