// Starting and stopping a listener: `listen` turns a failure into a ListenError that says what to
// do (the serve command prints it instead of a stack trace), and `closeServer` lets requests in
// flight finish for a moment before their connections are closed.
import type { Server as HttpServer } from 'node:http';
import { connectionCloser, type ConnectionCloser, type SecureListener } from './secure-listener.ts';
import { once } from 'node:events';

type Listener = SecureListener | HttpServer;

/** A listener that could not start, with what to do about it. */
export class ListenError extends Error {
  constructor(host: string, port: number, cause: unknown) {
    super(`Cannot listen on ${host}:${port}: ${listenAdvice((cause as NodeJS.ErrnoException).code)}`, {
      cause,
    });
    this.name = 'ListenError';
  }
}

function listenAdvice(code: string | undefined): string {
  switch (code) {
    case 'EADDRINUSE':
      return 'the port is already in use. Stop the other process or choose another port (--port / --http-port).';
    case 'EACCES':
      return 'permission denied. Choose a port above 1023.';
    case 'EADDRNOTAVAIL':
      return 'this machine has no such address. Use --host 127.0.0.1.';
    default:
      return `${code ?? 'unknown error'}.`;
  }
}

export async function listen(server: Listener, port: number, host: string): Promise<void> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    throw new ListenError(host, port, error);
  }
}

/** @param connections how to close its connections, set up with the server (`connectionCloser`). */
export async function closeServer(server: Listener, connections: ConnectionCloser): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  connections.closeIdle();
  // Requests in flight get a moment to finish, then their connections are closed too.
  const grace = setTimeout(() => connections.closeAll(), 2_000);
  await closed;
  clearTimeout(grace);
}

/**
 * Starts each listener on its port in turn; when one cannot, closes them all and throws its
 * ListenError. Called before any connection: how to close their connections is set up first.
 * @returns how to stop them all (`closeServer` each).
 */
export async function listenAll(
  listeners: readonly { server: Listener; port: number }[],
  host: string,
): Promise<() => Promise<void>> {
  const closers = listeners.map(({ server }) => connectionCloser(server));
  try {
    for (const { server, port } of listeners) await listen(server, port, host);
  } catch (error) {
    for (const { server } of listeners) server.close();
    throw error;
  }
  return async () => {
    await Promise.all(
      listeners.map(({ server }, index) => closeServer(server, closers[index] as ConnectionCloser)),
    );
  };
}
