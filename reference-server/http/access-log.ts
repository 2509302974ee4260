// One JSON line per request. It names the key by its public id only: the key itself never
// reaches the log, whatever the request carried.
import type { IncomingMessage } from 'node:http';
import { requestProtocol } from './field-lines.ts';
import type { ApiResponse } from './errors.ts';
import type { RequestFacts } from './request-facts.ts';

/**
 * A value that could carry a key or a piece of one, in any spelling, and is logged as `[redacted]`:
 * - the key prefix (`mbk`), or a percent-escape (`mbk%5Fprod_…` slips past a prefix match);
 * - 24 or more letters and digits in a row, as long as a key's random part without its prefix;
 * - an upper-case letter: the server's own paths, host names and ids are lower case, while any
 *   four characters of a key hold one 9 times in 10 — so a key split over short path segments is
 *   caught in each;
 * - 8 or more letters and digits that switch between letters and digits at least twice, as a
 *   key's random part does even when lower-cased into a host label (`ehueygexfl9ekl61…`) — unless
 *   it is a key id the server made (`key_` and 16 hex digits).
 * The server's own words (`customers`, `sign-in`, `acme`, `key_acme_prod_full`, `v1`) pass.
 */
function looksLikeKeyMaterial(value: string): boolean {
  if (KEY_MARKERS.test(value)) return true;
  if (SERVER_KEY_ID.test(value)) return false;
  return (value.match(ALPHANUMERIC_RUN) ?? []).some(
    (run) => (run.match(LETTER_DIGIT_SWITCH) ?? []).length >= 2,
  );
}

const KEY_MARKERS = /[Mm][Bb][Kk]|%[0-9A-Fa-f]{2}|[A-Z]|[A-Za-z0-9]{24}/;
const ALPHANUMERIC_RUN = /[A-Za-z0-9]{8,}/g;
const LETTER_DIGIT_SWITCH = /[A-Za-z](?=[0-9])|[0-9](?=[A-Za-z])/g;
/** The ids `KeyStore.create` gives. */
const SERVER_KEY_ID = /^key_[0-9a-f]{16}$/;
const REDACTED = '[redacted]';

/** The value itself, or `[redacted]` when it could carry a piece of a key. */
export function loggableValue(value: string): string {
  return looksLikeKeyMaterial(value) ? REDACTED : value;
}

export interface AccessLogEntry {
  time: string;
  /** The tenant, environment and key id the request was served as (`RequestFacts`). */
  tenant?: string;
  environment?: string;
  keyId?: string;
  method: string;
  path: string;
  status: number;
  errorCode?: string;
  durationMs: number;
  transport: 'https' | 'http';
  /** The request's HTTP version: h1 for HTTP/1.x, h2 for HTTP/2. */
  protocol: 'h1' | 'h2';
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
  const path = ((target ?? '').split(/[?#]/, 1)[0] ?? '').split('/').map(loggableValue).join('/');
  return path.length > 256 ? `${path.slice(0, 256)}…` : path;
}

/** What one answered request contributes to the log. */
export interface AnsweredRequest {
  /** Absent for a client error, refused before Node made a request of it. */
  req?: IncomingMessage;
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
    // Host labels and path pieces reach these too (an unknown tenant, a key id from a path).
    ...(facts?.tenant === undefined ? {} : { tenant: loggableValue(facts.tenant) }),
    ...(facts?.environment === undefined ? {} : { environment: facts.environment }),
    ...(facts?.keyId === undefined ? {} : { keyId: loggableValue(facts.keyId) }),
    // Node's parser admits only the methods it knows: never a piece of a key.
    method: req?.method ?? '',
    path: loggablePath(req?.url),
    status: response.status,
    errorCode: response.errorCode,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    transport,
    // A client error is only ever reported on an HTTP/1.1 connection (HTTP/2 resets its stream).
    protocol: req ? requestProtocol(req) : 'h1',
  });
}
