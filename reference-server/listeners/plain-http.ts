// The plain-HTTP listener. It exists only so that "plain HTTP requests are rejected" (spec §5)
// can be shown: every request is answered with `Connection: close` by the front door, with
// api/steps.ts's 403 `https_required` (unless the server was given another `plainHttpAnswer` step). It never
// authenticates with the Authorization header or the URL's parameters (the client journal only
// names a key sent here, to flag it as exposed), and never redirects — a redirect would teach
// clients that sending a key over plain HTTP works.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { writeRawError } from '../http/response-writer.ts';
import { countEveryHeaderLine, limitOptions, type ServerLimits } from './listener-limits.ts';

/** @param handle answers every request (front-door/front-door.ts `plainRequest`). */
export function createPlainHttpServer(
  limits: ServerLimits,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Server {
  const server = createServer(
    // The same limits as the HTTPS listener; every answer here closes the connection anyway.
    limitOptions(limits),
    handle,
  );
  countEveryHeaderLine(server);
  // Without listeners Node answers these with an empty 417 or no answer at all; here they get
  // the same JSON rejection as every other plain-HTTP request.
  server.on('checkExpectation', handle);
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    writeRawError(socket, 'https_required', 'http');
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    writeRawError(
      socket,
      error.code === 'HPE_HEADER_OVERFLOW' ? 'request_header_fields_too_large' : 'https_required',
      'http',
    );
  });
  return server;
}
