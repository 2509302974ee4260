// What the HTTPS listener answers when Node reports a client error before any request handler
// runs: a malformed or too slow request gets the JSON error its fault calls for; a connection
// that failed TLS is closed, since it cannot carry an answer.
import type { Duplex } from 'node:stream';
import { writeRawError } from '../http/response-writer.ts';

/** The HTTPS listener's 'clientError' handler. */
export function answerHttpsClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // Node's https server also reports TLS failures here (its own 'tlsClientError' listener
  // re-emits them), on a connection that never completed TLS and cannot carry an answer: an
  // answer written to it would stay queued and the connection open, which a handshake time-out
  // does not close. Such a connection is closed at once.
  if (!isHttpClientError(error)) {
    socket.destroy();
    return;
  }
  writeRawError(socket, clientErrorCode(error), 'https');
}

/** An error of Node's HTTP parser or time limits, as opposed to a TLS or socket failure. */
function isHttpClientError(error: NodeJS.ErrnoException): boolean {
  return (error.code ?? '').startsWith('HPE_') || error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
}

function clientErrorCode(
  error: NodeJS.ErrnoException,
): 'request_header_fields_too_large' | 'request_timeout' | 'bad_request' {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'request_header_fields_too_large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request_timeout';
    default:
      return 'bad_request';
  }
}
