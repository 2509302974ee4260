// A front's HTTPS server (or the bench's bare baseline) listening on a free loopback port, and
// closing it: open connections are ended at once, so that a test's after() never waits for a
// client's keep-alive (or an idle HTTP/2 session, which Node keeps open for ever).
import type { Server } from 'node:https';
import type { Http2SecureServer } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';

export interface Listening {
  port: number;
  close: () => Promise<void>;
}

/** Listens on 127.0.0.1; `close` also runs `onClose` (e.g. to end upstream connections). */
export async function listenOnLoopback(
  server: Server | Http2SecureServer,
  onClose?: () => void,
): Promise<Listening> {
  const closeAllConnections = connectionsCloser(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((closed) => {
        closeAllConnections();
        onClose?.();
        server.close(() => closed());
      }),
  };
}

/** node:https ends its connections itself; the HTTP/2 server's are counted here from the start. */
function connectionsCloser(server: Server | Http2SecureServer): () => void {
  if ('closeAllConnections' in server) return () => server.closeAllConnections();
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return () => {
    for (const socket of sockets) socket.destroy();
  };
}
