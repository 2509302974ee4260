// The main thread's handle on the gate thread (thread.ts): starts it, serves the gate port through
// it, and — on the embedded database — is the registry's Database, every statement a message to
// the thread that holds PGlite. Every wait on the thread is bounded; a thread that fails says why.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Database } from '../database/database.ts';
import { remoteEmbedded } from '../database/embedded-host.ts';
import type { FromGate, GateDatabase, GateServe, ToGate } from './messages.ts';

/** The thread opens its database (PGlite's files, a server's connection) well within this. */
const WAIT_MS = 120_000;

export interface GateThread {
  /** The embedded database, reached through the thread; undefined for a server's. */
  readonly db: Database | undefined;
  /** Serves can-i-ship and the badge on `serve.port` (0: a free one); resolves with the port. */
  serve(serve: GateServe): Promise<number>;
  /** Stops serving the gate port (the database stays open). */
  stopServing(): Promise<void>;
  /** Stops serving and closes the thread's database and the thread; idempotent. */
  close(): Promise<void>;
}

export class GateThreadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GateThreadError';
  }
}

/** The thread's module beside this one: .ts when run from source (tsx), .js when built. */
const fromSource = extname(fileURLToPath(import.meta.url)) === '.ts';
const THREAD = new URL(`./thread.${fromSource ? 'ts' : 'js'}`, import.meta.url);

export async function openGateThread(
  database: GateDatabase,
  log: (line: string) => void = () => undefined,
): Promise<GateThread> {
  const worker = fromSource
    ? // Run from source (tsx): Node 20 does not carry tsx's loader into a worker; the thread
      // registers it before it imports its module.
      new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(THREAD.href)}); });`,
        { eval: true, workerData: database },
      )
    : new Worker(THREAD, { workerData: database });
  const post = (message: ToGate): void => worker.postMessage(message);
  const remote =
    database.kind === 'embedded'
      ? remoteEmbedded(
          (request) => post({ type: 'database', request }),
          () => close(),
        )
      : undefined;
  const waiters: { type: FromGate['type']; resolve(message: FromGate): void; reject(error: Error): void }[] =
    [];
  const fail = (error: Error): void => {
    remote?.fail(error);
    for (const waiter of waiters.splice(0)) waiter.reject(error);
  };
  worker.on('message', (message: FromGate) => {
    if (message.type === 'database') return remote?.receive(message.reply);
    if (message.type === 'log') return log(message.line);
    const waiter =
      message.type === 'failed' ? waiters.shift() : waiters.find((one) => one.type === message.type);
    if (!waiter) return;
    waiters.splice(waiters.indexOf(waiter), 1);
    if (message.type === 'failed') waiter.reject(new GateThreadError(message.message));
    else waiter.resolve(message);
  });
  let exited = false;
  worker.once('error', (error) => fail(new GateThreadError(`the gate thread failed: ${error.message}`)));
  worker.once('exit', () => {
    exited = true;
    fail(new GateThreadError('the gate thread has stopped'));
  });
  const next = (type: FromGate['type']): Promise<FromGate> => {
    if (exited) return Promise.reject(new GateThreadError('the gate thread has stopped'));
    let timer: NodeJS.Timeout | undefined;
    return new Promise<FromGate>((resolve, reject) => {
      waiters.push({ type, resolve, reject });
      timer = setTimeout(
        () => reject(new GateThreadError(`the gate thread did not answer within ${WAIT_MS / 1000} s`)),
        WAIT_MS,
      );
    }).finally(() => clearTimeout(timer));
  };
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      if (!exited) {
        const closed = next('closed');
        post({ type: 'close' });
        await closed.catch(() => undefined);
      }
      await worker.terminate();
    })());
  try {
    await next('ready');
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return {
    db: remote?.db,
    async serve(serve) {
      const serving = next('serving');
      post({ type: 'serve', serve });
      const message = await serving;
      return message.type === 'serving' ? message.port : 0;
    },
    async stopServing() {
      if (exited) return;
      const stopped = next('unserved');
      post({ type: 'unserve' });
      await stopped;
    },
    close,
  };
}
