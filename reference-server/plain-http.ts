// The plain-HTTP listener. It exists only so that "plain HTTP requests are rejected" (spec §5)
// can be shown: every request is answered 403 `https_required` with `Connection: close`. It
// never reads the Authorization header or the URL's parameters, and never redirects — a redirect
// would teach clients that sending a key over plain HTTP works.
import { createServer, type Server } from 'node:http';
import { apiError } from './errors.ts';
import type { AccessLogSink } from './access-log.ts';
import { loggablePath } from './access-log.ts';
import { writeApiResponse, writeRawError } from './response-writer.ts';
import type { ServerLimits } from './server.ts';

export function createPlainHttpServer(limits: ServerLimits, log: AccessLogSink): Server {
  const server = createServer({ maxHeaderSize: limits.maxHeaderBytes }, (req, res) => {
    const started = performance.now();
    const response = apiError('https_required');
    res.shouldKeepAlive = false;
    writeApiResponse(res, response, 'http');
    log({
      time: new Date().toISOString(),
      method: req.method ?? '',
      path: loggablePath(req.url),
      status: response.status,
      errorCode: response.errorCode,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      transport: 'http',
    });
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
