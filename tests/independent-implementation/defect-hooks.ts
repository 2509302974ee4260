// Defects of the independent implementation that act around its app rather than in a step of its
// check order (choices.ts): error bodies rewritten as they are sent, HTTP/2 streams refused and
// connections drained before the app sees a request.
import type { FastifyInstance } from 'fastify';
import { constants as http2Constants, type Http2SecureServer, type ServerHttp2Stream } from 'node:http2';

/** The `html` error bodies defect (choices.ts): an error's JSON body replaced by a page saying it. */
export function answerErrorsInHtml(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    reply.header('Content-Type', 'text/html; charset=utf-8');
    const title = `${reply.statusCode} Error`;
    return `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;
  });
}

/**
 * Every `every`th HTTP/2 stream is reset with REFUSED_STREAM as it opens, before the app sees it
 * (RFC 9113 §8.7): the server's own stream handler runs for the others only.
 */
export function refuseStreams(app: FastifyInstance, every: number): void {
  const server = app.server as unknown as Http2SecureServer;
  const handlers = server.listeners('stream') as ((...args: unknown[]) => void)[];
  server.removeAllListeners('stream');
  let seen = 0;
  server.on('stream', (stream: ServerHttp2Stream, ...rest: unknown[]) => {
    seen += 1;
    if (seen % every === 0) {
      // The server's own reset, told to it as an error of the stream: nothing to report.
      stream.on('error', () => {});
      stream.close(http2Constants.NGHTTP2_REFUSED_STREAM);
    } else for (const handler of handlers) handler.call(server, stream, ...rest);
  });
}

/** How long a drained connection stays open after its GOAWAY. */
const DRAIN_GRACE_MS = 50;

/** Every Nth connection drained at its first stream (GOAWAY NO_ERROR below it), then closed. */
export function drainConnections(app: FastifyInstance, every: number): void {
  const server = app.server as unknown as Http2SecureServer;
  const handlers = server.listeners('stream') as ((...args: unknown[]) => void)[];
  server.removeAllListeners('stream');
  let sessions = 0;
  const drained = new WeakSet<object>();
  server.on('session', (session) => {
    sessions += 1;
    if (sessions % every === 0) drained.add(session);
  });
  server.on('stream', (stream: ServerHttp2Stream, ...rest: unknown[]) => {
    const session = stream.session;
    if (!session || !drained.has(session)) {
      for (const handler of handlers) handler.call(server, stream, ...rest);
      return;
    }
    stream.on('error', () => {});
    // The client learns of the drain from the GOAWAY alone (its stream is above the last id),
    // then the connection goes, as a front ends it once its grace period is over.
    session.goaway(http2Constants.NGHTTP2_NO_ERROR, Math.max(0, (stream.id ?? 1) - 2));
    setTimeout(() => session.destroy(), DRAIN_GRACE_MS).unref();
  });
}
