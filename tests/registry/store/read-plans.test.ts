// Every read is by index: with 10 000 runs stored, each query the registry's reads send — the
// certified list and a deployment's history a page at a time, can-i-ship (and about replacing the
// live version), diff, the badge (of a known and of an unknown deployment), a run and its files,
// the live release, the audit list, and the statements of a yank and of a release recorded — is planned by PostgreSQL without a
// walk of the whole of runs or of rule outcomes (a sequential scan, or an index scan with no
// condition), on the embedded database and on a server. A plan
// test, not a timing test: the plan is what makes the time flat from 1 000 to 100 000 runs
// (bench/registry-results.md measures it).
import { bundleFileNames } from '../../../registry/store/bundle-files.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canIShip } from '../../../registry/ask/can-i-ship.ts';
import { diffVersions } from '../../../registry/ask/diff.ts';
import { canIShipReplacingLive } from '../../../registry/ask/replacing-live.ts';
import type { Database, Queryable } from '../../../registry/database/database.ts';
import { RequestError } from '../../../registry/http/respond.ts';
import { auditList } from '../../../registry/store/audit.ts';
import { deploymentsPage, versionsPage } from '../../../registry/store/listing.ts';
import { liveOf, recordRelease } from '../../../registry/store/releases.ts';
import { latestRun, newestOfVersion, outcomesOf, runById } from '../../../registry/store/runs.ts';
import { targetOf } from '../../../registry/store/targets.ts';
import { yankRun } from '../../../registry/store/yanks.ts';
import { renderRegistryBadge } from '../../../registry/web/badge.ts';
import { BACKENDS, openBackend, stopBackends, type OpenedBackend } from '../support/backends.ts';
import { seedRuns } from '../support/seed.ts';

// bundle_files is read by its primary key; the seeded runs have no files, so its plan is not read here.
const LARGE_TABLES = new Set(['runs', 'rule_outcomes']);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/**
 * Every walk of a whole large table in a plan: a sequential scan, or an index scan with no index
 * condition (the whole index in order: as long as the table).
 */
function seqScans(node: PlanNode): string[] {
  const table = node['Relation Name'] ?? '';
  const type = node['Node Type'];
  const whole =
    LARGE_TABLES.has(table) &&
    (type === 'Seq Scan' ||
      ((type === 'Index Scan' || type === 'Index Only Scan') && node['Index Cond'] === undefined));
  return [...(whole ? [`${type} on ${table}`] : []), ...(node.Plans ?? []).flatMap(seqScans)];
}

/** A Queryable that has PostgreSQL plan each statement (EXPLAIN, same parameters) before running it. */
function explaining(db: Queryable, plans: { sql: string; scans: string[] }[]): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const [row] = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
      const plan = row?.['QUERY PLAN'];
      // pg parses the JSON column; PGlite too, but a string is read either way.
      const [top] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ Plan: PlanNode }];
      plans.push({ sql: sql.replace(/\s+/g, ' ').slice(0, 160), scans: seqScans(top.Plan) });
      return db.query<Row>(sql, params);
    },
  };
}

/** The same for a database's transactions: each statement in one is planned first too. */
function explainingDatabase(db: Database, plans: { sql: string; scans: string[] }[]): Database {
  return {
    ...explaining(db, plans),
    kind: db.kind,
    gate: explaining(db.gate, plans),
    transaction: (work) => db.transaction((tx) => work(explaining(tx, plans))),
    close: () => db.close(),
  };
}

for (const backend of BACKENDS) {
  describe(`every read is by index, with 10 000 runs stored (${backend} database)`, () => {
    let opened: OpenedBackend;
    before(async () => {
      opened = await openBackend(backend);
      // 50 deployments × 100 versions × 2 runs, 3 rule outcomes each; every 7th run fails.
      await seedRuns(opened.db, {
        prefix: 'd',
        deployments: 50,
        runs: 10_000,
        runsPerVersion: 2,
        failEvery: 7,
        outcomes: 3,
      });
    });
    after(async () => {
      await opened.close();
      if (backend === 'server') await stopBackends();
    });

    test('no read plans a sequential scan of runs or rule outcomes', async () => {
      const plans: { sql: string; scans: string[] }[] = [];
      const db = explaining(opened.db, plans);
      const first = await deploymentsPage(db, { after: undefined, limit: 50 });
      assert.equal(first.deployments.length, 50);
      assert.ok(first.deployments.every(({ certified }) => certified !== undefined));
      await deploymentsPage(db, { after: 'd17', limit: 10 });
      const versions = await versionsPage(db, 'd3', { after: undefined, limit: 50 });
      assert.equal(versions.versions.length, 50);
      assert.equal(versions.runs.length, 100);
      await versionsPage(db, 'd3', { after: versions.next, limit: 50 });
      await versionsPage(db, 'nowhere', { after: undefined, limit: 50 });
      const run = versions.runs[0];
      assert.ok(run);
      await outcomesOf(
        db,
        versions.runs.map((each) => each.id),
      );
      await canIShip(db, { deployment: 'd3', version: '1.0.7' });
      await canIShip(db, { deployment: 'nowhere', version: '1.0.7' });
      await diffVersions(db, 'd3', '1.0.1', '1.0.2');
      await newestOfVersion(db, 'd3', '1.0.9');
      await latestRun(db, 'd3');
      await renderRegistryBadge(db, 'd3');
      await assert.rejects(renderRegistryBadge(db, 'nowhere'), RequestError);
      await runById(db, run.id);
      await bundleFileNames(db, run.id);
      await targetOf(db, 'd3');
      // The operations: a yank, a release recorded, and what reads them. The yanked run is d4's
      // newest CONFORMANT run, so its certified run is now an earlier one, and the yank is listed.
      const operated = explainingDatabase(opened.db, plans);
      const certifiedBefore = (await deploymentsPage(db, { after: 'd39', limit: 1 })).deployments[0]
        ?.certified;
      assert.ok(certifiedBefore);
      const yanked = await yankRun(operated, certifiedBefore.id, 'operator', 'published by mistake');
      assert.ok(yanked.yanked);
      const certifiedAfter = (await deploymentsPage(db, { after: 'd39', limit: 1 })).deployments[0]
        ?.certified;
      assert.ok(certifiedAfter && certifiedAfter.id !== certifiedBefore.id, 'a yanked run still certifies');
      await recordRelease(operated, 'd3', '1.0.5', 'operator');
      const live = await liveOf(db, 'd3');
      assert.equal(live?.release.version, '1.0.5');
      await canIShipReplacingLive(db, { deployment: 'd3', version: '1.0.7' });
      const newest = await auditList(db, { after: undefined, limit: 1 });
      assert.equal(newest.entries[0]?.action, 'release');
      const older = await auditList(db, { after: newest.next, limit: 1 });
      assert.deepEqual(
        [older.entries[0]?.action, older.next],
        ['yank', undefined],
        'the next page of the audit list is the yank, and the last',
      );
      assert.ok(plans.length >= 15, `only ${plans.length} statements were planned`);
      const scanning = plans.filter((plan) => plan.scans.length > 0);
      assert.deepEqual(
        scanning.map((plan) => `${plan.scans.join(', ')}: ${plan.sql}`),
        [],
        'a read walks a whole table',
      );
    });
  });
}
