// The gate thread: can-i-ship and the badge on a port of their own (--gate-port), on an event loop
// of their own. The main thread's loop is shared by every page, upload and TLS record of a crowd;
// this one runs the gate reads only, so a crowd on the main port never queues ahead of them. On a
// PostgreSQL server the thread reads through its own pool; the embedded database (PGlite, which
// runs on the thread that opened it) is opened here, and the main thread's statements come by
// message (database/embedded-host.ts), behind this thread's own reads in the lane.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { openPGlite, openServer, type Database, type Queryable } from '../database/database.ts';
import { hostEmbedded, laneQueryable } from '../database/embedded-host.ts';
import { PriorityLane } from '../database/priority-lane.ts';
import { checkRead, gateRoute } from '../http/gate-routes.ts';
import { RequestError, sendFailure } from '../http/respond.ts';
import { PublishersFile } from '../publish/publishers.ts';
import type { FromGate, GateDatabase, GateServe, ToGate } from './messages.ts';

const port = parentPort;
if (!port) throw new Error('registry/gate/thread.ts runs as a worker thread of the registry.');
const tell = (message: FromGate): void => port.postMessage(message);
const log = (line: string): void => tell({ type: 'log', line });

async function openGate(database: GateDatabase): Promise<{
  gate: Queryable;
  host?: ReturnType<typeof hostEmbedded>;
  close(): Promise<void>;
}> {
  if (database.kind === 'server') {
    // The server's gate pool, in this thread; its main pool of one connection stays idle.
    const db: Database = await openServer(
      database.url,
      { poolSize: 1, gatePoolSize: database.gatePoolSize },
      database.password,
    );
    return { gate: db.gate, close: () => db.close() };
  }
  const pglite = await openPGlite(database.directory);
  const lane = new PriorityLane();
  return {
    gate: laneQueryable(lane, pglite, 'gate'),
    host: hostEmbedded(pglite, lane),
    close: () => pglite.close(),
  };
}

async function serve(gate: Queryable, options: GateServe): Promise<Server> {
  const publishers = options.publishersFile ? new PublishersFile(options.publishersFile, log) : undefined;
  const server = createServer({ key: options.tls.key, cert: options.tls.cert }, (request, response) => {
    const started = performance.now();
    const path = (request.url ?? '/').split('?')[0]?.slice(0, 200) ?? '/';
    response.once('finish', () =>
      log(
        `gate ${request.method} ${path} ${response.statusCode} ${Math.round(performance.now() - started)} ms`,
      ),
    );
    const answer = async (): Promise<void> => {
      const url = new URL(request.url ?? '/', 'https://registry.invalid');
      const segments = checkRead(request, response, url.pathname, publishers);
      if (!(await gateRoute(gate, segments, url.searchParams, response)))
        throw new RequestError(
          404,
          'not_found',
          `The gate port answers /api/v1/can-i-ship and /badge/NAME.svg only: ask the registry's main port for ${url.pathname.slice(0, 100)}.`,
        );
    };
    answer().catch((error: unknown) => sendFailure(error, request, response, (line) => log(`gate ${line}`)));
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 60_000;
  return await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}

const opened = await openGate(workerData as GateDatabase).catch((error: unknown) => {
  tell({ type: 'failed', message: error instanceof Error ? error.message : 'the gate could not start' });
  return undefined;
});
if (opened) {
  let server: Server | undefined;
  port.on('message', (message: ToGate) => {
    if (message.type === 'database') {
      if (opened.host) opened.host(message.request, (reply) => tell({ type: 'database', reply }));
    } else if (message.type === 'serve') {
      serve(opened.gate, message.serve).then(
        (listening) => {
          server = listening;
          tell({ type: 'serving', port: (listening.address() as AddressInfo).port });
        },
        (error: unknown) =>
          tell({ type: 'failed', message: error instanceof Error ? error.message : 'cannot listen' }),
      );
    } else {
      const closing = server;
      server = undefined;
      void new Promise<void>((resolve) => {
        if (!closing) return resolve();
        closing.close(() => resolve());
        closing.closeAllConnections();
      })
        .then(() => (message.type === 'close' ? opened.close() : undefined))
        .finally(() => tell({ type: message.type === 'close' ? 'closed' : 'unserved' }));
    }
  });
  tell({ type: 'ready' });
}
