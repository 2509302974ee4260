// What a listener's client errors are answered, for both listeners in one table: Node reports them
// before any request handler runs (a malformed or too slow request, a header section too large, or
// a connection that failed TLS).
import type { ApiErrorCode } from '../http/errors.ts';
import type { Transport } from '../http/response-writer.ts';

/**
 * The error a client error is answered with, or undefined for a connection that cannot carry an
 * answer. Node's https server also reports TLS failures as client errors (its own
 * 'tlsClientError' listener re-emits them), on a connection that never completed TLS: an answer
 * written to it would stay queued and the connection open, which a handshake time-out does not
 * close, so such a connection is closed at once. Plain HTTP refuses whatever else it is sent with
 * `https_required`, as it refuses every request (spec §5 Scheme 4).
 */
export function clientErrorCode(
  error: NodeJS.ErrnoException,
  transport: Transport,
): ApiErrorCode | undefined {
  const code = error.code ?? '';
  if (!code.startsWith('HPE_') && code !== 'ERR_HTTP_REQUEST_TIMEOUT') return undefined;
  if (code === 'HPE_HEADER_OVERFLOW') return 'request_header_fields_too_large';
  if (transport === 'http') return 'https_required';
  return code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'bad_request';
}
