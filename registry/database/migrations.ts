// The registry's schema, as numbered migrations applied in order, each once, with its row in
// registry_migrations; the pending ones are applied in one transaction, so a failed migration leaves
// the schema as it was. The same list builds the embedded database and a PostgreSQL server's. A migration is never edited once released; a change is a new one.
import type { Database } from './database.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'runs, their rule outcomes and their content-addressed bundles',
    sql: `
      CREATE TABLE bundles (
        sha256 text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        size_bytes bigint NOT NULL,
        stored_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE bundle_files (
        bundle_sha256 text NOT NULL REFERENCES bundles (sha256) ON DELETE CASCADE,
        name text NOT NULL,
        sha256 text NOT NULL,
        content bytea NOT NULL,
        PRIMARY KEY (bundle_sha256, name)
      );
      CREATE TABLE deployments (
        name text PRIMARY KEY,
        publisher text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE runs (
        id serial PRIMARY KEY,
        bundle_sha256 text NOT NULL UNIQUE REFERENCES bundles (sha256),
        deployment text NOT NULL REFERENCES deployments (name),
        version text NOT NULL,
        target_name text NOT NULL,
        base_url text NOT NULL,
        profile text NOT NULL,
        verdict text NOT NULL,
        protocols_checked text[] NOT NULL,
        protocols_offered text[] NOT NULL,
        rules_selected integer NOT NULL,
        rules_in_catalog integer NOT NULL,
        partial text[] NOT NULL,
        scope jsonb NOT NULL,
        options jsonb NOT NULL,
        kit_version text NOT NULL,
        catalog_sha256 text,
        statement_sha256 text NOT NULL,
        report_sha256 text NOT NULL,
        signer text NOT NULL,
        publisher text NOT NULL,
        started_at timestamptz NOT NULL,
        published_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX runs_by_version ON runs (deployment, version, id);
      CREATE TABLE rule_outcomes (
        run_id integer NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        rule_id text NOT NULL,
        level text NOT NULL,
        -- 'all' is the rule's verdict over every protocol checked; the others are one protocol's.
        protocol text NOT NULL,
        verdict text NOT NULL,
        PRIMARY KEY (run_id, rule_id, protocol)
      );
    `,
  },
  {
    version: 2,
    name: 'runs ordered by their own signed start time, not by upload',
    sql: `
      CREATE INDEX runs_by_version_start ON runs (deployment, version, started_at, id);
      CREATE INDEX runs_by_deployment_start ON runs (deployment, started_at, id);
    `,
  },
  {
    version: 3,
    name: 'every warning verify prints travels with its run',
    sql: `ALTER TABLE runs ADD COLUMN warnings text[] NOT NULL DEFAULT '{}'`,
  },
  {
    version: 4,
    name: 'a deployment bound to its target, and each move of it',
    sql: `
      ALTER TABLE runs ADD COLUMN other_tenant text;
      ALTER TABLE deployments ADD COLUMN base_url text;
      ALTER TABLE deployments ADD COLUMN other_tenant text;
      UPDATE deployments d SET base_url = (
        SELECT r.base_url FROM runs r WHERE r.deployment = d.name ORDER BY r.started_at DESC, r.id DESC LIMIT 1
      );
      CREATE TABLE target_moves (
        id serial PRIMARY KEY,
        deployment text NOT NULL REFERENCES deployments (name),
        from_base_url text NOT NULL,
        from_other_tenant text,
        to_base_url text NOT NULL,
        to_other_tenant text,
        publisher text NOT NULL,
        run_id integer NOT NULL REFERENCES runs (id),
        moved_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX target_moves_by_deployment ON target_moves (deployment, id);
    `,
  },
  {
    version: 5,
    name: 'every list pages and every read is by index',
    // A deployment's versions page by their first run (its id: the order of first publication,
    // which an insert never changes); the certified list walks a deployment's CONFORMANT runs from
    // the newest and stops at the first that is the latest of its version.
    sql: `
      CREATE INDEX runs_by_deployment_id ON runs (deployment, id);
      CREATE INDEX runs_conformant_by_deployment_start ON runs (deployment, started_at, id) WHERE verdict = 'CONFORMANT';
      `,
  },
  {
    version: 6,
    name: 'operations: yanked runs, removed bundle files, releases and the audit list',
    sql: `
      ALTER TABLE runs ADD COLUMN yanked_at timestamptz;
      ALTER TABLE runs ADD COLUMN yanked_by text;
      ALTER TABLE runs ADD COLUMN yank_reason text;
      ALTER TABLE runs ADD COLUMN files_removed_at timestamptz;
      CREATE TABLE releases (
        id serial PRIMARY KEY,
        deployment text NOT NULL REFERENCES deployments (name),
        version text NOT NULL,
        recorded_by text NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX releases_by_deployment ON releases (deployment, id);
      CREATE TABLE audit (
        id serial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        actor text NOT NULL,
        action text NOT NULL,
        subject text NOT NULL,
        reason text,
        detail jsonb NOT NULL DEFAULT '{}'
      );
    `,
  },
  {
    version: 7,
    name: 'who checked a run: its publisher, or the registry itself (registry recheck)',
    // Every run stored before was a publisher's word. The registry's own runs are few per version:
    // can-i-ship --checked-by registry reads them by the same index as every run of a version.
    sql: `ALTER TABLE runs ADD COLUMN checked_by text NOT NULL DEFAULT 'publisher' CHECK (checked_by IN ('publisher', 'registry'))`,
  },
  {
    version: 8,
    name: 'webhooks and their deliveries, a queue that survives a restart',
    // A delivery keeps the exact body it sends (signed at each attempt with its webhook's secret);
    // the due index is what the worker claims from, the other what a webhook's list pages by.
    sql: `
      CREATE TABLE webhooks (
        id serial PRIMARY KEY,
        owner text NOT NULL,
        operator boolean NOT NULL,
        deployment text,
        url text NOT NULL,
        events text[] NOT NULL,
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX webhooks_by_owner ON webhooks (owner, id);
      CREATE TABLE webhook_deliveries (
        id serial PRIMARY KEY,
        delivery_id uuid NOT NULL UNIQUE,
        webhook_id integer NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event text NOT NULL,
        deployment text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        claimed_until timestamptz,
        last_attempt_at timestamptz,
        last_status integer,
        last_error text,
        delivered_at timestamptz
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'delivering');
      CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
      CREATE INDEX webhook_deliveries_by_deployment ON webhook_deliveries (deployment, id);
    `,
  },
  {
    version: 9,
    name: "a bundle's large files kept outside the embedded database, as content-addressed blobs",
    // A file is in its row (content) or in the blob store (in_blob: named by its sha256, its size
    // kept to check what is read back); rows stored before stay as they were and are served as
    // they are. The index is what decides whether a blob is still referenced before it is deleted.
    sql: `
      ALTER TABLE bundle_files ALTER COLUMN content DROP NOT NULL;
      ALTER TABLE bundle_files ADD COLUMN in_blob boolean NOT NULL DEFAULT false;
      ALTER TABLE bundle_files ADD COLUMN size_bytes bigint;
      ALTER TABLE bundle_files ADD CONSTRAINT bundle_files_in_one_place CHECK (
        (in_blob AND content IS NULL AND size_bytes IS NOT NULL AND sha256 ~ '^[0-9a-f]{64}$')
        OR (NOT in_blob AND content IS NOT NULL)
      );
      CREATE INDEX bundle_files_blobs ON bundle_files (sha256) WHERE in_blob;
    `,
  },
];

/** Newer than this registry: refused rather than read with the wrong schema. */
export class DatabaseTooNewError extends Error {
  constructor(found: number, known: number) {
    super(
      `The database is at schema version ${found}, newer than this registry knows (${known}): use the kit version that wrote it, or a newer one.`,
    );
    this.name = 'DatabaseTooNewError';
  }
}

/** A fixed key for PostgreSQL's advisory lock: two registries starting at once migrate one at a time. */
const MIGRATION_LOCK = 4_140_001;

/** Applies every migration not yet applied; returns the versions it applied. */
export async function migrate(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  const known = Math.max(0, ...migrations.map((migration) => migration.version));
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS registry_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = await tx.query<{ version: number }>('SELECT version FROM registry_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const newest = Math.max(0, ...applied);
    if (newest > known) throw new DatabaseTooNewError(newest, known);
    const done: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      // One statement at a time: pg's extended protocol takes one per call.
      for (const statement of statementsOf(migration.sql)) await tx.query(statement);
      await tx.query('INSERT INTO registry_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      done.push(migration.version);
    }
    return done;
  });
}

/** The statements of a migration (none of ours holds a `;` inside a string or a body). */
function statementsOf(sql: string): string[] {
  return sql
    .replace(/--[^\n]*/g, '')
    .split(';')
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
