// The registry's storage, once on the embedded database and once on a PostgreSQL server: the same
// migrations build both, a run is stored with its bundle and outcomes in one transaction (a failure
// half-way leaves nothing), the same bundle stored twice is one run, concurrent stores lose nothing,
// and a deployment is its first publisher's.
import { bundleFile } from '../../../registry/store/bundle-files.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { migrate, DatabaseTooNewError, MIGRATIONS } from '../../../registry/database/migrations.ts';
import {
  DeploymentOwnedError,
  outcomesOf,
  runsOf,
  storeRun,
  storedCounts,
  type BundleContent,
  type RuleOutcome,
  type RunFacts,
} from '../../../registry/store/runs.ts';
import { deploymentsPage } from '../../../registry/store/listing.ts';
import { BACKENDS, openBackend, stopBackends, type OpenedBackend } from '../support/backends.ts';

/** The newest migration's number (numbers may skip one that another branch holds). */
const NEWEST = Math.max(...MIGRATIONS.map((migration) => migration.version));
const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

function facts(deployment: string, version: string, verdict = 'CONFORMANT'): RunFacts {
  return {
    deployment,
    version,
    targetName: deployment,
    baseUrl: `https://${deployment}.example/v1`,
    profile: 'strict',
    verdict,
    protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
    protocolsOffered: ['HTTP/1.1', 'HTTP/2'],
    rulesSelected: 2,
    rulesInCatalog: 2,
    partial: [],
    scope: { protocolsChecked: ['HTTP/1.1', 'HTTP/2'] },
    options: { maxListPages: 5 },
    kitVersion: '0.1.0',
    catalogSha256: null,
    statementSha256: sha256('statement'),
    reportSha256: sha256('report'),
    signer: 'sha256:' + 'a'.repeat(64),
    publisher: 'acme',
    startedAt: '2026-11-25T10:00:00.000Z',
    warnings: [],
    otherTenant: null,
    checkedBy: 'publisher',
  };
}

function bundle(seed: string): BundleContent {
  const content = Buffer.from(`report of ${seed}`);
  return {
    sha256: sha256(`manifest of ${seed}`),
    files: [{ name: 'conformance.json', sha256: sha256(content), content }],
  };
}

const outcomes: RuleOutcome[] = [
  { ruleId: 'AUTH-A', level: 'MUST', protocol: 'all', verdict: 'pass' },
  { ruleId: 'AUTH-A', level: 'MUST', protocol: 'HTTP/1.1', verdict: 'pass' },
  { ruleId: 'AUTH-B', level: 'HTTP', protocol: 'all', verdict: 'fail' },
];

for (const backend of BACKENDS) {
  describe(`registry storage on the ${backend} database`, () => {
    let opened: OpenedBackend;
    before(async () => {
      opened = await openBackend(backend);
    });
    after(async () => {
      await opened.close();
      if (backend === 'server') await stopBackends();
    });

    test('the migrations are recorded and applied once', async () => {
      const rows = await opened.db.query<{ version: number }>('SELECT version FROM registry_migrations');
      assert.deepEqual(
        rows.map((row) => row.version),
        MIGRATIONS.map((migration) => migration.version),
      );
      assert.deepEqual(await migrate(opened.db), []);
    });

    test('a database newer than the registry is refused, not read', async () => {
      await assert.rejects(
        migrate(opened.db, MIGRATIONS.slice(0, 0)),
        (error: unknown) =>
          error instanceof DatabaseTooNewError && error.message.includes(`schema version ${NEWEST}, newer`),
      );
    });

    test('a migration that fails leaves the schema and the migrations table as they were', async () => {
      const broken = [
        ...MIGRATIONS,
        {
          version: NEWEST + 1,
          name: 'half done',
          sql: 'CREATE TABLE half_done (id int); SELECT no_such_function()',
        },
      ];
      await assert.rejects(migrate(opened.db, broken));
      const tables = await opened.db.query("SELECT 1 FROM pg_tables WHERE tablename = 'half_done'");
      assert.equal(tables.length, 0);
      const versions = await opened.db.query<{ version: number }>('SELECT version FROM registry_migrations');
      assert.deepEqual(
        versions.map((row) => row.version).sort((a, b) => a - b),
        MIGRATIONS.map((migration) => migration.version),
      );
    });

    test('a run is stored with its bundle and outcomes, and read back as stored', async () => {
      const result = await storeRun(opened.db, facts('store-one', '1.0.0'), bundle('one'), outcomes);
      assert.equal(result.stored, 'new');
      const [run] = await runsOf(opened.db, 'store-one');
      assert.equal(run?.id, result.run.id);
      assert.deepEqual(run?.protocolsChecked, ['HTTP/1.1', 'HTTP/2']);
      assert.deepEqual(run?.options, { maxListPages: 5 });
      assert.equal(run?.startedAt, '2026-11-25T10:00:00.000Z');
      const stored = await outcomesOf(opened.db, [result.run.id]);
      assert.deepEqual(
        stored.map(({ ruleId, protocol, verdict }) => `${ruleId} ${protocol} ${verdict}`),
        ['AUTH-A HTTP/1.1 pass', 'AUTH-A all pass', 'AUTH-B all fail'],
      );
      const file = await bundleFile(opened.db, result.run.id, 'conformance.json');
      assert.equal(file && 'content' in file ? file.content.toString() : file, 'report of one');
      assert.deepEqual(
        (await deploymentsPage(opened.db, { after: undefined, limit: 200 })).deployments.flatMap(
          ({ certified }) => (certified ? [certified.deployment] : []),
        ),
        ['store-one'],
      );
    });

    test('the same bundle stored twice is one run', async () => {
      const first = await storeRun(opened.db, facts('store-twice', '1.0.0'), bundle('twice'), outcomes);
      const again = await storeRun(opened.db, facts('store-twice', '1.0.0'), bundle('twice'), outcomes);
      assert.equal(again.stored, 'duplicate');
      assert.equal(again.run.id, first.run.id);
      assert.equal((await runsOf(opened.db, 'store-twice')).length, 1);
    });

    test('a store that fails half-way leaves nothing behind', async () => {
      const before = await storedCounts(opened.db);
      // The same rule and protocol twice breaks the outcomes' key after the run row is inserted.
      const broken = [...outcomes, outcomes[0] as RuleOutcome];
      await assert.rejects(storeRun(opened.db, facts('store-broken', '1.0.0'), bundle('broken'), broken));
      assert.deepEqual(await storedCounts(opened.db), before);
    });

    test('a deployment is its first publisher’s: another is refused and nothing is stored', async () => {
      await storeRun(opened.db, facts('store-owned', '1.0.0'), bundle('owned'), outcomes);
      const before = await storedCounts(opened.db);
      await assert.rejects(
        storeRun(
          opened.db,
          { ...facts('store-owned', '1.0.1'), publisher: 'mallory' },
          bundle('owned-2'),
          outcomes,
        ),
        DeploymentOwnedError,
      );
      assert.deepEqual(await storedCounts(opened.db), before);
    });

    test('concurrent stores lose nothing, and one bundle sent at once by many is one run', async () => {
      const distinct = Array.from({ length: 12 }, (_, index) =>
        storeRun(
          opened.db,
          facts('store-concurrent', `1.0.${index}`),
          bundle(`concurrent-${index}`),
          outcomes,
        ),
      );
      const same = Array.from({ length: 6 }, () =>
        storeRun(opened.db, facts('store-concurrent', '2.0.0'), bundle('concurrent-same'), outcomes),
      );
      const results = await Promise.all([...distinct, ...same]);
      const runs = await runsOf(opened.db, 'store-concurrent');
      assert.equal(runs.length, 13);
      assert.equal(results.filter((result) => result.stored === 'new').length, 13);
      assert.equal(new Set(results.slice(12).map((result) => result.run.id)).size, 1);
      assert.equal(
        (
          await outcomesOf(
            opened.db,
            runs.map((run) => run.id),
          )
        ).length,
        13 * outcomes.length,
      );
    });
  });
}
