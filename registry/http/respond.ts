// Every answer of the registry leaves through here: JSON (the API), HTML (the pages), SVG (the
// badge) and a bundle's files. Errors are one shape, {"error": {"code", "message"}}, and never
// carry what the client sent in Authorization.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/** A request the registry refuses: its status, a stable code and what to do. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

const COMMON = {
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=31536000',
};

/** Answers of a registry with --private-reads: never stored by a shared cache. */
const privateAnswers = new WeakSet<ServerResponse>();

export function markPrivate(response: ServerResponse): void {
  privateAnswers.add(response);
}

/** `private` in place of `public`, or added, for an answer that needed a token. */
function privately(cacheControl: string | undefined): string {
  if (cacheControl === undefined) return 'private';
  if (/\bpublic\b/.test(cacheControl)) return cacheControl.replace(/\bpublic\b/, 'private');
  return /\b(private|no-store)\b/.test(cacheControl) ? cacheControl : `private, ${cacheControl}`;
}

export function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) return;
  const all: Record<string, string> = {
    ...COMMON,
    'Content-Type': contentType,
    'Content-Length': String(Buffer.byteLength(body)),
    ...headers,
  };
  if (privateAnswers.has(response)) all['Cache-Control'] = privately(all['Cache-Control']);
  response.writeHead(status, all);
  response.end(body);
}

/**
 * Like `send`, with the body read from `body` a piece at a time (a blob's file): never whole in
 * memory. A read that fails half-way ends the connection (the length announced is not met), so a
 * client never takes a truncated file for the file.
 */
export function sendStream(
  response: ServerResponse,
  status: number,
  contentType: string,
  size: number,
  body: Readable,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) {
    body.destroy();
    return;
  }
  const all: Record<string, string> = {
    ...COMMON,
    'Content-Type': contentType,
    'Content-Length': String(size),
    ...headers,
  };
  if (privateAnswers.has(response)) all['Cache-Control'] = privately(all['Cache-Control']);
  response.writeHead(status, all);
  body.once('error', () => response.destroy());
  response.once('close', () => body.destroy());
  body.pipe(response);
}

export function sendJson(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  send(response, status, 'application/json', `${JSON.stringify(value, null, 2)}\n`, {
    'Cache-Control': 'no-store',
    ...headers,
  });
}

export function sendError(response: ServerResponse, error: RequestError, request?: IncomingMessage): void {
  const headers: Record<string, string> = {};
  if (error.status === 401) headers['WWW-Authenticate'] = 'Bearer realm="registry"';
  // Busy (uploads at their bound): a moment later a slot is likely free.
  if (error.status === 503) headers['Retry-After'] = '2';
  // An answer sent before the body was read whole: the connection cannot carry another request.
  if (request && !request.complete) headers.Connection = 'close';
  sendJson(response, error.status, { error: { code: error.code, message: error.message } }, headers);
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  send(response, status, 'text/html; charset=utf-8', html, {
    'Cache-Control': 'no-cache',
    // The pages are server-rendered and need no script.
    'Content-Security-Policy':
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'",
  });
}

/**
 * Answers a request that failed: a RequestError as itself, anything else 500 — never the error's
 * text or stack to the client; `log` names what happened.
 */
export function sendFailure(
  error: unknown,
  request: IncomingMessage,
  response: ServerResponse,
  log: (line: string) => void,
): void {
  if (error instanceof RequestError) return sendError(response, error, request);
  log(`error: ${error instanceof Error ? `${error.name}: ${error.message}` : 'unknown'}`);
  sendError(
    response,
    new RequestError(500, 'internal_error', 'The registry could not answer: see its log.'),
    request,
  );
}
