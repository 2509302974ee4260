// What an answer may carry over HTTP/2: no connection-specific field (RFC 9113 §8.2.2), which Node
// refuses with an exception. An answer that leaves a body unread says `Connection: close` so that
// an HTTP/1.1 connection does not carry on from the middle of that body; over HTTP/2 only the
// stream ends, and the field is left out.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';

/** Whether a response object is an HTTP/2 stream's (Node's compatibility object). */
export function isHttp2Response(value: unknown): value is Http2ServerResponse {
  return typeof value === 'object' && value !== null && 'stream' in value && 'writeHead' in value;
}

/** `headers` as `res` may send them: without `Connection` over HTTP/2. */
export function headersFor<Headers extends OutgoingHttpHeaders>(
  res: ServerResponse,
  headers: Headers,
): Headers {
  if (headers.Connection === undefined || !isHttp2Response(res)) return headers;
  const rest: OutgoingHttpHeaders = { ...headers };
  delete rest.Connection;
  return rest as Headers;
}
