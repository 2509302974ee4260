// A front's HTTPS server listening on a free loopback port, and closing it: open connections are
// ended at once, so that a test's after() never waits for a client's keep-alive.
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface Listening {
  port: number;
  close: () => Promise<void>;
}

/** Listens on 127.0.0.1; `close` also runs `onClose` (e.g. to end upstream connections). */
export async function listenOnLoopback(server: Server, onClose?: () => void): Promise<Listening> {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        onClose?.();
        server.close(() => closed());
      }),
  };
}
