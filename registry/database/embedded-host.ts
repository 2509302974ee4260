// The embedded database served over a message channel: PGlite runs on the thread that opened it
// (the gate thread, registry/gate/), and the registry's main thread reaches it through
// `remoteEmbedded`, one message per statement. The database's work then never runs on the main
// thread's event loop, and the thread's own reads (can-i-ship, the badge) go first in its
// PriorityLane: they wait for at most the one statement under way, never for the main thread.
import type { Database, Queryable } from './queryable.ts';
import { PriorityLane, type Lane } from './priority-lane.ts';

/** What the main thread asks: a statement (in a lane or in its open transaction), a transaction's ends. */
export type DatabaseRequest =
  | { id: number; op: 'query'; lane: Lane | 'transaction'; sql: string; params: unknown[] }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; commit: boolean };

/** The answer to request `id`: its rows, or the database's error (its message and PostgreSQL code). */
export type DatabaseReply =
  { id: number; rows: unknown[] } | { id: number; error: { message: string; code?: string } };

/** The one connection of PGlite, as much of it as this file uses. */
export interface EmbeddedConnection {
  query<Row>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

/** Statements on `connection`, one at a time, gate reads first (see PriorityLane). */
export function laneQueryable(lane: PriorityLane, connection: EmbeddedConnection, which: Lane): Queryable {
  return {
    query: <Row>(sql: string, params: readonly unknown[] = []) =>
      lane.run(which, async () => (await connection.query<Row>(sql, [...params])).rows),
  };
}

function errorReply(id: number, error: unknown): DatabaseReply {
  const code = (error as { code?: unknown }).code;
  return {
    id,
    error: {
      message: error instanceof Error ? error.message : 'the embedded database failed',
      ...(typeof code === 'string' ? { code } : {}),
    },
  };
}

/**
 * Answers the main thread's requests on `connection`. A transaction holds the lane from its begin
 * to its end, as PGlite's own transactions hold its one connection.
 */
export function hostEmbedded(
  connection: EmbeddedConnection,
  lane: PriorityLane,
): (request: DatabaseRequest, reply: (answer: DatabaseReply) => void) => void {
  let endTransaction: ((commit: boolean) => Promise<void>) | undefined;
  return (request, reply) => {
    if (request.op === 'query') {
      const run = async (): Promise<unknown[]> => (await connection.query(request.sql, request.params)).rows;
      const rows = request.lane === 'transaction' ? run() : lane.run(request.lane, run);
      rows.then(
        (found) => reply({ id: request.id, rows: found }),
        (error: unknown) => reply(errorReply(request.id, error)),
      );
    } else if (request.op === 'begin') {
      void lane
        .run('other', async () => {
          await connection.query('BEGIN');
          await new Promise<void>((ended) => {
            endTransaction = async (commit) => {
              try {
                await connection.query(commit ? 'COMMIT' : 'ROLLBACK');
              } finally {
                endTransaction = undefined;
                ended();
              }
            };
            reply({ id: request.id, rows: [] });
          });
        })
        .catch((error: unknown) => reply(errorReply(request.id, error)));
    } else {
      const end = endTransaction;
      if (end === undefined) reply(errorReply(request.id, new Error('no transaction is open')));
      else
        end(request.commit).then(
          () => reply({ id: request.id, rows: [] }),
          (error: unknown) => reply(errorReply(request.id, error)),
        );
    }
  };
}

/** Each kind of request without its id (Omit over each member of the union). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

/** The main thread's side: the Database whose every statement is a request to the hosting thread. */
export function remoteEmbedded(
  send: (request: DatabaseRequest) => void,
  close: () => Promise<void>,
): { db: Database; receive(reply: DatabaseReply): void; fail(error: Error): void } {
  let next = 0;
  const pending = new Map<number, { resolve(rows: unknown[]): void; reject(error: Error): void }>();
  const ask = (request: Unnumbered<DatabaseRequest>): Promise<unknown[]> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      send({ ...request, id });
    });
  const on = (lane: Lane | 'transaction'): Queryable => ({
    query: async <Row>(sql: string, params: readonly unknown[] = []) =>
      (await ask({ op: 'query', lane, sql, params: [...params] })) as Row[],
  });
  const db: Database = {
    kind: 'embedded',
    ...on('other'),
    gate: on('gate'),
    async transaction(work) {
      await ask({ op: 'begin' });
      let result;
      try {
        result = await work(on('transaction'));
      } catch (error) {
        await ask({ op: 'end', commit: false }).catch(() => undefined);
        throw error;
      }
      await ask({ op: 'end', commit: true });
      return result;
    },
    close,
  };
  return {
    db,
    receive(reply) {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if ('rows' in reply) waiting.resolve(reply.rows);
      else waiting.reject(Object.assign(new Error(reply.error.message), reply.error));
    },
    fail(error) {
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    },
  };
}
