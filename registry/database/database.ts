// One small interface over the two PostgreSQL backends the registry runs on: PGlite (Postgres
// compiled to WebAssembly, in a directory: nothing to install) and a PostgreSQL server reached
// through `pg`. Everything above this file speaks SQL through `query` and `transaction` only, so
// the schema, the migrations and every query are the same for both.
import { mkdirSync } from 'node:fs';

export interface Queryable {
  /** Runs one statement with `$1…` parameters (never interpolated) and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'server';
  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The embedded database in `directory` (created when missing). */
export async function openEmbedded(directory: string): Promise<Database> {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(directory);
  return {
    kind: 'embedded',
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      return (await db.query<Row>(sql, [...params])).rows;
    },
    // PGlite is one connection: its transactions run one after another.
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          async query<Row>(sql: string, params: readonly unknown[] = []) {
            return (await tx.query<Row>(sql, [...params])).rows;
          },
        }),
      ),
    close: () => db.close(),
  };
}

/** A PostgreSQL server (`postgres://user@host:port/database`), through a pool of connections. */
export async function openServer(url: string, poolSize = 10, password?: string): Promise<Database> {
  const { default: pg } = await import('pg');
  // Without a password here, pg takes PGPASSWORD (or ~/.pgpass): never one in the URL, which ps shows.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(password !== undefined ? { password } : {}),
  });
  // An idle connection the server drops must not end the process.
  pool.on('error', () => undefined);
  // Fail at start-up, with the server's own reason, rather than at the first request.
  (await pool.connect()).release();
  const queryOn =
    (client: Pick<InstanceType<typeof pg.Pool>, 'query'>) =>
    async <Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> =>
      (await client.query(sql, [...params])).rows as Row[];
  return {
    kind: 'server',
    query: queryOn(pool),
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
    close: () => pool.end(),
  };
}

/** `--database-url` when given, else the embedded database in `directory`. */
export function openDatabase(where: {
  databaseUrl?: string;
  databasePassword?: string;
  directory: string;
}): Promise<Database> {
  return where.databaseUrl !== undefined
    ? openServer(where.databaseUrl, 10, where.databasePassword)
    : openEmbedded(where.directory);
}
