// Writes a JSON answer (the API's, the admin API's) with the headers every answer of the API carries.
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { apiError, type ApiErrorCode, type JsonAnswer } from './errors.ts';
import { headersFor } from './http2-answer.ts';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Headers of every answer: no caching of answers to credentialed requests (ASVS 8.2.1). */
const COMMON_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** HSTS (ASVS 4.1.1), sent only over HTTPS: RFC 6797 §7.2 forbids it on plain HTTP. */
const HTTPS_ONLY_HEADERS: Record<string, string> = {
  'Strict-Transport-Security': 'max-age=31536000',
};

export type Transport = 'https' | 'http';

const HTTP_ONLY_HEADERS: Record<string, string> = { Connection: 'close' };

export function writeApiResponse(res: ServerResponse, response: JsonAnswer, transport: Transport): void {
  // A frozen answer (every error, the customers of a tenant: see `constantResponse`) is the same
  // for every request: its JSON and header fields are built once per transport, not per request.
  // Only frozen answers are ever stored, so a stored one needs no check.
  if (response.status === 304) {
    // Not Modified has no body (RFC 9110 §15.4.5): the common fields and the validator, nothing else.
    const transportHeaders = transport === 'https' ? HTTPS_ONLY_HEADERS : HTTP_ONLY_HEADERS;
    res.writeHead(
      304,
      headersFor(res, Object.assign({}, COMMON_HEADERS, transportHeaders, response.headers)),
    );
    res.end();
    return;
  }
  let prepared = PREPARED[transport].get(response);
  if (!prepared) {
    prepared = prepare(response, transport);
    if (Object.isFrozen(response)) PREPARED[transport].set(response, prepared);
  }
  res.writeHead(response.status, headersFor(res, prepared.headers));
  res.end(prepared.body);
}

/** An answer's serialised body and complete header fields, ready to write. */
interface PreparedAnswer {
  headers: Readonly<Record<string, string | number>>;
  body: string;
}

/** Keyed by the answer object itself, so an answer that is no longer used takes its entry along. */
const PREPARED: Record<Transport, WeakMap<JsonAnswer, PreparedAnswer>> = {
  https: new WeakMap(),
  http: new WeakMap(),
};

function prepare(response: JsonAnswer, transport: Transport): PreparedAnswer {
  const body = JSON.stringify(response.body);
  // Object.assign, not object spread: V8 spreads these header objects far more slowly.
  const headers: Record<string, string | number> = Object.assign(
    {},
    COMMON_HEADERS,
    transport === 'https' ? HTTPS_ONLY_HEADERS : HTTP_ONLY_HEADERS,
    response.headers,
  );
  headers['Content-Type'] = JSON_CONTENT_TYPE;
  headers['Content-Length'] = Buffer.byteLength(body);
  return { headers: Object.freeze(headers), body };
}

/**
 * Answers on a raw socket, for errors Node raises before a request object exists (headers too
 * large, time-outs, unparsable request lines), so those too get a JSON body and never a bare close.
 */
export function writeRawError(socket: Duplex, code: ApiErrorCode, transport: Transport): void {
  if (!socket.writable) return;
  const response = apiError(code);
  // The same header fields and body as `writeApiResponse` writes, and the socket is closed after.
  const { headers, body } = prepare(response, transport);
  const head = [
    `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`,
    ...Object.entries({ ...headers, Connection: 'close' }).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  socket.end(`${head}\r\n\r\n${body}`);
}
