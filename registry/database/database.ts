// One small interface over the two PostgreSQL backends the registry runs on: PGlite (Postgres
// compiled to WebAssembly, in a directory: nothing to install) and a PostgreSQL server reached
// through `pg`. Everything above this file speaks SQL through `query` and `transaction` only, so
// the schema, the migrations and every query are the same for both.
import { mkdirSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { BYTEA_CODEC, keepByteaArraysText } from './bytea.ts';
import { PriorityLane } from './priority-lane.ts';
import { laneQueryable } from './embedded-host.ts';
import type { Database } from './queryable.ts';

export type { Database, Queryable } from './queryable.ts';

/**
 * PGlite on `directory` (created when missing), bytea given and read as bytes (bytea.ts): what
 * this thread's registry opens, or the gate thread that holds the database for it.
 */
export async function openPGlite(directory: string): Promise<PGlite> {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(directory, BYTEA_CODEC);
  keepByteaArraysText(db);
  return db;
}

/** The embedded database in `directory` (created when missing). */
export async function openEmbedded(directory: string): Promise<Database> {
  const db = await openPGlite(directory);
  const lane = new PriorityLane();
  return {
    kind: 'embedded',
    ...laneQueryable(lane, db, 'other'),
    gate: laneQueryable(lane, db, 'gate'),
    // PGlite is one connection: its transactions run one after another, each holding the lane.
    transaction: (work) =>
      lane.run('other', () =>
        db.transaction((tx) =>
          work({
            async query<Row>(sql: string, params: readonly unknown[] = []) {
              return (await tx.query<Row>(sql, [...params])).rows;
            },
          }),
        ),
      ),
    close: () => db.close(),
  };
}

/** The server's pools: every other statement's, and the gate reads' own (see Database.gate). */
export interface PoolSizes {
  poolSize?: number;
  gatePoolSize?: number;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_GATE_POOL_SIZE = 2;

/**
 * A PostgreSQL server (`postgres://user@host:port/database`), through two pools of connections:
 * the gate reads' (`gatePoolSize`) and everything else's (`poolSize`).
 */
export async function openServer(
  url: string,
  { poolSize = DEFAULT_POOL_SIZE, gatePoolSize = DEFAULT_GATE_POOL_SIZE }: PoolSizes = {},
  password?: string,
): Promise<Database> {
  const { default: pg } = await import('pg');
  // Without a password here, pg takes PGPASSWORD (or ~/.pgpass): never one in the URL, which ps shows.
  const poolOf = (max: number): InstanceType<typeof pg.Pool> => {
    const made = new pg.Pool({
      connectionString: url,
      max,
      ...(password !== undefined ? { password } : {}),
    });
    // An idle connection the server drops must not end the process.
    made.on('error', () => undefined);
    return made;
  };
  const pool = poolOf(poolSize);
  const gatePool = poolOf(gatePoolSize);
  // Fail at start-up, with the server's own reason, rather than at the first request.
  (await pool.connect()).release();
  const queryOn =
    (client: Pick<InstanceType<typeof pg.Pool>, 'query'>) =>
    async <Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> =>
      (await client.query(sql, [...params])).rows as Row[];
  return {
    kind: 'server',
    query: queryOn(pool),
    gate: { query: queryOn(gatePool) },
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work({ query: queryOn(client) });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: async () => {
      await Promise.all([pool.end(), gatePool.end()]);
    },
  };
}

/** `--database-url` when given, else the embedded database in `directory`. */
export function openDatabase(
  where: {
    databaseUrl?: string;
    databasePassword?: string;
    directory: string;
  },
  pools: PoolSizes = {},
): Promise<Database> {
  return where.databaseUrl !== undefined
    ? openServer(where.databaseUrl, pools, where.databasePassword)
    : openEmbedded(where.directory);
}
