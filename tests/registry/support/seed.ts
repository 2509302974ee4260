// Many stored runs at once, straight into the database by SQL (a publish verifies each bundle; a
// test or a benchmark of 100 000 runs cannot wait for that): `runs` runs over `deployments`
// deployments, run i of deployment `${prefix}${i % deployments}`, version `1.0.${i / deployments}`
// (one run per version unless `runsPerVersion` says more), started one second after the last.
// Each run's facts are a template run's (a real published one, with its rule outcomes) or, without
// one, a CONFORMANT strict run over HTTP/1.1 of the whole catalog (with `outcomes` passing rules).
import type { Queryable } from '../../../registry/database/database.ts';

export interface Seeding {
  prefix: string;
  deployments: number;
  runs: number;
  /** Runs of each version (consecutive runs of a deployment share it); 1 by default. */
  runsPerVersion?: number;
  /** Every `failEvery`-th run is NOT CONFORMANT (without a template); never by default. */
  failEvery?: number;
  /** A stored run whose facts and rule outcomes every seeded run copies. */
  template?: number;
  /** Without a template: each run's outcomes, rules SEED-1… overall (`all`), every one a pass. */
  outcomes?: number;
  /** With a template: false to copy its facts only, not its rule outcomes (fast at 100 000 runs). */
  copyOutcomes?: boolean;
  /** The index of the first run (default 0): seeds more runs of the same deployments. */
  first?: number;
}

const SYNTHETIC = `SELECT 'seed' AS target_name, 'https://seed.example/v1' AS base_url, 'strict' AS profile,
  'CONFORMANT' AS verdict, ARRAY['HTTP/1.1'] AS protocols_checked, ARRAY['HTTP/1.1'] AS protocols_offered,
  1 AS rules_selected, 1 AS rules_in_catalog, ARRAY[]::text[] AS partial, 'null'::jsonb AS scope,
  '{}'::jsonb AS options, '0.0.0' AS kit_version, NULL::text AS catalog_sha256, repeat('0', 64) AS statement_sha256,
  repeat('0', 64) AS report_sha256, 'sha256:' || repeat('0', 64) AS signer, 'acme' AS publisher,
  timestamptz '2026-01-01T00:00:00Z' AS started_at`;

/** Seeds the runs; returns how long it took, in seconds. */
export async function seedRuns(db: Queryable, seeding: Seeding): Promise<number> {
  const started = performance.now();
  const { prefix, deployments, runs, runsPerVersion = 1, failEvery = 0, template } = seeding;
  const { outcomes = 0, copyOutcomes = true, first = 0 } = seeding;
  const source = (parameter: number): string =>
    template === undefined ? SYNTHETIC : `SELECT * FROM runs WHERE id = $${parameter}::int`;
  const [before] = await db.query<{ last: number }>('SELECT coalesce(max(id), 0)::int AS last FROM runs');
  await db.query(
    `INSERT INTO deployments (name, publisher, base_url)
     SELECT $1::text || d, t.publisher, t.base_url FROM generate_series(0, $2::int - 1) AS d CROSS JOIN (${source(3)}) AS t
     ON CONFLICT (name) DO NOTHING`,
    [prefix, deployments, ...(template === undefined ? [] : [template])],
  );
  await db.query(
    `INSERT INTO bundles (sha256, size_bytes)
     SELECT encode(sha256(($1::text || ' seed ' || i)::bytea), 'hex'), 1 FROM generate_series($3::int, $3::int + $2::int - 1) AS i`,
    [prefix, runs, first],
  );
  await db.query(
    `INSERT INTO runs (bundle_sha256, deployment, version, target_name, base_url, profile, verdict, protocols_checked,
       protocols_offered, rules_selected, rules_in_catalog, partial, scope, options, kit_version, catalog_sha256,
       statement_sha256, report_sha256, signer, publisher, started_at)
     SELECT encode(sha256(($1::text || ' seed ' || i)::bytea), 'hex'), $1::text || (i % $3::int),
       '1.0.' || (i / $3::int / $4::int), t.target_name, t.base_url, t.profile,
       CASE WHEN $5::int = 0 THEN t.verdict WHEN i % $5::int = $5::int - 1 THEN 'NOT CONFORMANT' ELSE t.verdict END,
       t.protocols_checked, t.protocols_offered, t.rules_selected, t.rules_in_catalog, t.partial,
       t.scope, t.options, t.kit_version, t.catalog_sha256, t.statement_sha256, t.report_sha256, t.signer, t.publisher,
       t.started_at + i * interval '1 second'
     FROM generate_series($6::int, $6::int + $2::int - 1) AS i CROSS JOIN (${source(7)}) AS t`,
    [
      prefix,
      runs,
      deployments,
      runsPerVersion,
      failEvery,
      first,
      ...(template === undefined ? [] : [template]),
    ],
  );
  if (template !== undefined && copyOutcomes)
    await db.query(
      `INSERT INTO rule_outcomes (run_id, rule_id, level, protocol, verdict)
       SELECT r.id, o.rule_id, o.level, o.protocol, o.verdict
       FROM runs r CROSS JOIN (SELECT * FROM rule_outcomes WHERE run_id = $1::int) AS o WHERE r.id > $2::int`,
      [template, before?.last ?? 0],
    );
  else if (outcomes > 0)
    await db.query(
      `INSERT INTO rule_outcomes (run_id, rule_id, level, protocol, verdict)
       SELECT r.id, 'SEED-' || k, 'MUST', 'all', 'pass' FROM runs r CROSS JOIN generate_series(1, $2::int) AS k
       WHERE r.id > $1::int`,
      [before?.last ?? 0, outcomes],
    );
  await db.query('ANALYZE');
  return (performance.now() - started) / 1000;
}
