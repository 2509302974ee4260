// The registry's tests run once per backend: the embedded database (PGlite in a temporary
// directory, copied from a template: embedded-template.ts) and a PostgreSQL server this file
// starts. `openBackend` opens a fresh, migrated database of either kind for a test and closes it
// after.
import { rmSync } from 'node:fs';
import {
  DEFAULT_GATE_POOL_SIZE,
  openEmbedded,
  openServer,
  type Database,
  type PoolSizes,
} from '../../../registry/database/database.ts';
import { migrate } from '../../../registry/database/migrations.ts';
import { openGateThread, type GateThread } from '../../../registry/gate/gate.ts';
import { startPostgres, type PostgresServer } from './postgres-server.ts';
import { copyEmbeddedTemplate } from './embedded-template.ts';
import { scratchDirectory } from '../../support/scratch.ts';

export const BACKENDS = ['embedded', 'server'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface OpenedBackend {
  db: Database;
  /** The gate thread (registry/gate/), when asked for: on the embedded database it holds PGlite. */
  gate?: GateThread;
  /** Where the database is, as `registry serve` takes it. */
  where: { directory: string; databaseUrl?: string };
  close(): Promise<void>;
}

let server: Promise<PostgresServer> | undefined;
let databases = 0;

/**
 * A fresh, migrated database of `backend` (one PostgreSQL server per test process), a server's
 * through pools of `pools`' sizes.
 */
export async function openBackend(
  backend: Backend,
  migrated = true,
  pools: PoolSizes = {},
  withGateThread = false,
): Promise<OpenedBackend> {
  const directory = scratchDirectory('registry-db-');
  let db: Database;
  let databaseUrl: string | undefined;
  let gate: GateThread | undefined;
  if (backend === 'embedded') {
    await copyEmbeddedTemplate(directory);
    // With a gate thread, PGlite is opened on it and this thread reaches it by message.
    if (withGateThread) gate = await openGateThread({ kind: 'embedded', directory });
    db = gate?.db ?? (await openEmbedded(directory));
  } else {
    server ??= startPostgres();
    databaseUrl = await (await server).newDatabase(`registry_test_${process.pid}_${++databases}`);
    db = await openServer(databaseUrl, pools);
    if (withGateThread)
      gate = await openGateThread({
        kind: 'server',
        url: databaseUrl,
        gatePoolSize: pools.gatePoolSize ?? DEFAULT_GATE_POOL_SIZE,
      });
  }
  if (migrated) await migrate(db);
  return {
    db,
    ...(gate ? { gate } : {}),
    where: { directory, ...(databaseUrl !== undefined ? { databaseUrl } : {}) },
    async close() {
      await db.close();
      await gate?.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Stops the PostgreSQL server, if this process started one. */
export async function stopBackends(): Promise<void> {
  const started = server;
  server = undefined;
  if (started) await (await started).close();
}

/** `db` with the statements it runs outside a transaction counted: how often a piece reads. */
export function countingStatements(db: Database): { db: Database; statements: () => number } {
  let statements = 0;
  return {
    db: { ...db, query: (sql, params) => (statements++, db.query(sql, params)) },
    statements: () => statements,
  };
}
