// The plain-HTTP listener. It exists only so that "plain HTTP requests are rejected" (spec §5)
// can be shown: every request is answered with `Connection: close` by the front door, with
// steps/server-steps.ts's 403 `https_required` (unless the server was given another `plainHttpAnswer` step). It never
// authenticates with the Authorization header or the URL's parameters (the client journal only
// names a key sent here, to flag it as exposed), and never redirects — a redirect would teach
// clients that sending a key over plain HTTP works.
import { createServer, type Server } from 'node:http';
import { countEveryHeaderLine, limitOptions, type ServerLimits } from './listener-limits.ts';
import type { ListenerHandlers } from './secure-listener.ts';

/** @param handlers answer everything (front-door/front-door.ts `plain`). */
export function createPlainHttpServer(limits: ServerLimits, handlers: ListenerHandlers): Server {
  const server = createServer(
    // The same limits as the HTTPS listener; every answer here closes the connection anyway.
    limitOptions(limits),
    handlers.request,
  );
  countEveryHeaderLine(server);
  // Without listeners Node answers these with an empty 417 or no answer at all; here they get
  // the same JSON rejection as every other plain-HTTP request.
  server.on('checkExpectation', handlers.request);
  server.on('connect', handlers.connect);
  server.on('clientError', handlers.clientError);
  return server;
}
