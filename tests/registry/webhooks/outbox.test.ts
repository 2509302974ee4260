// A change and its events are committed together, on both databases: the deliveries are inserted
// in the publish's (or the yank's) own transaction, so a transaction rolled back after the run was
// stored leaves neither the run nor its deliveries, and a failure while queueing the events is
// undone to a savepoint — the run is still stored, the failure logged, no delivery half queued.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Queryable } from '../../../registry/database/database.ts';
import {
  storeRun,
  type BundleContent,
  type StoredRun,
  type StoreResult,
} from '../../../registry/store/runs.ts';
import { yankRun } from '../../../registry/store/yanks.ts';
import { Webhooks, type QueueEvents } from '../../../registry/webhooks/service.ts';
import { addWebhook } from '../../../registry/webhooks/store.ts';
import { WEBHOOK_EVENTS } from '../../../registry/webhooks/url.ts';
import { BACKENDS, countingStatements, openBackend, stopBackends } from '../support/backends.ts';
import { runFacts, sha256 } from '../support/run-facts.ts';

after(() => stopBackends());

const bundle = (seed: string): BundleContent => {
  const content = Buffer.from(`report of ${seed}`);
  return {
    sha256: sha256(`manifest of ${seed}`),
    files: [{ name: 'conformance.json', sha256: sha256(`report of ${seed}`), content }],
  };
};
const outcomes = [{ ruleId: 'AUTH-A', level: 'MUST', protocol: 'all', verdict: 'pass' }];
const published = (result: StoreResult) =>
  result.stored === 'new' ? { kind: 'published' as const, run: result.run } : undefined;

/** The events queued, oldest first. */
const queued = async (db: Queryable): Promise<string[]> =>
  (await db.query<{ event: string }>('SELECT event FROM webhook_deliveries ORDER BY id')).map(
    (row) => row.event,
  );

/** `tx`, but its `nth` insert of a delivery is a statement the database refuses (which aborts `tx`). */
function failingInsert(tx: Queryable, nth: number): Queryable {
  let inserts = 0;
  return {
    query: <Row>(sql: string, params?: readonly unknown[]): Promise<Row[]> =>
      sql.includes('INSERT INTO webhook_deliveries') && ++inserts === nth
        ? tx.query<Row>('SELECT 1 / 0')
        : tx.query<Row>(sql, params),
  };
}

// The embedded database is also run through the gate thread (--gate-port), where a transaction's
// statements are messages to the thread that holds PGlite.
const PLACES = [
  ...BACKENDS.map((backend) => ({ backend, threaded: false })),
  { backend: 'embedded' as const, threaded: true },
];

for (const { backend, threaded } of PLACES) {
  describe(`the events of a change are committed with it (${backend}${threaded ? ', gate thread' : ''})`, async () => {
    const opened = await openBackend(backend, true, {}, threaded);
    const logged: string[] = [];
    // No host allowed: the worker woken after a commit records a refusal and sends nothing.
    const webhooks = new Webhooks(opened.db, { allowedHosts: [] }, (line) => logged.push(line));
    const failures = () => logged.filter((line) => line.includes('could not be queued'));
    after(async () => {
      await webhooks.close();
      await opened.close();
    });
    await addWebhook(opened.db, {
      owner: 'ops',
      operator: true,
      deployment: null,
      url: 'https://hooks.example/registry',
      events: [...WEBHOOK_EVENTS],
    });
    const publish = (
      seed: string,
      verdict: string,
      day: number,
      onStored: (queue: QueueEvents<StoreResult>) => QueueEvents<StoreResult>,
    ) =>
      webhooks.around<StoreResult>(
        'shop',
        '1.0.0',
        (queue) =>
          storeRun(
            opened.db,
            runFacts('shop', { verdict, startedAt: `2026-11-${String(day).padStart(2, '0')}T00:00:00.000Z` }),
            bundle(seed),
            outcomes,
            { onStored: queue && onStored(queue) },
          ),
        published,
        'acme',
      );

    test('the deliveries are in the run transaction, seen by it before it commits', async () => {
      let inTransaction: string[] = [];
      const result = await publish('first', 'CONFORMANT', 1, (queue) => async (tx, stored) => {
        await queue(tx, stored);
        inTransaction = await queued(tx);
      });
      assert.equal(result.stored, 'new');
      assert.deepEqual(inTransaction, ['run.published']);
      assert.deepEqual(await queued(opened.db), ['run.published']);
      assert.deepEqual(failures(), []);
    });

    test('a transaction rolled back after the run was stored leaves neither the run nor its events', async () => {
      let inTransaction: string[] = [];
      await assert.rejects(
        publish('rolled-back', 'NOT CONFORMANT', 2, (queue) => async (tx, stored) => {
          await queue(tx, stored);
          inTransaction = await queued(tx);
          throw new Error('the registry stopped before the commit');
        }),
        /stopped before the commit/,
      );
      assert.deepEqual(inTransaction, [
        'run.published',
        'run.published',
        'version.verdict_changed',
        'certified_version.lost',
      ]);
      assert.deepEqual(await queued(opened.db), ['run.published'], 'no event of the run not stored');
      const runs = await opened.db.query('SELECT id FROM runs WHERE bundle_sha256 = $1', [
        bundle('rolled-back').sha256,
      ]);
      assert.equal(runs.length, 0);
    });

    test('a failure while queueing is undone to its savepoint: the run is stored, the failure logged, no event half queued', async () => {
      const result = await publish(
        'unqueued',
        'NOT CONFORMANT',
        3,
        (queue) => (tx, stored) => queue(failingInsert(tx, 2), stored),
      );
      assert.equal(result.stored, 'new', 'the run is stored whatever happens to its events');
      const [run] = await opened.db.query<{ verdict: string }>('SELECT verdict FROM runs WHERE id = $1', [
        result.run.id,
      ]);
      assert.equal(run?.verdict, 'NOT CONFORMANT');
      assert.deepEqual(
        await queued(opened.db),
        ['run.published'],
        'the first of its three events is undone too',
      );
      assert.equal(failures().length, 1);
      assert.match(
        failures()[0] ?? '',
        new RegExp(`events of run ${result.run.id} could not be queued: division by zero`),
      );
    });

    test("a yank's events are queued in the yank's transaction", async () => {
      const [unqueued] = await opened.db.query<{ id: number }>(
        'SELECT id FROM runs WHERE bundle_sha256 = $1',
        [bundle('unqueued').sha256],
      );
      let inTransaction: string[] = [];
      const yanked = await webhooks.around<StoredRun>(
        'shop',
        '1.0.0',
        (queue) =>
          yankRun(
            opened.db,
            unqueued?.id ?? -1,
            'ops',
            'published by mistake',
            queue &&
              (async (tx, run) => {
                await queue(tx, run);
                inTransaction = await queued(tx);
              }),
          ),
        (run) => ({ kind: 'yanked', run }),
      );
      assert.ok(yanked.yanked);
      const expected = ['run.published', 'version.verdict_changed'];
      assert.deepEqual(
        inTransaction,
        expected,
        'NOT CONFORMANT back to CONFORMANT: certified again, nothing lost',
      );
      assert.deepEqual(await queued(opened.db), expected);
    });
  });
}

for (const backend of BACKENDS) {
  test(`with no webhook for the deployment a change costs one query and is given nothing to queue (${backend})`, async () => {
    const opened = await openBackend(backend);
    const { db: counted, statements } = countingStatements(opened.db);
    const webhooks = new Webhooks(counted, { allowedHosts: [] }, () => {});
    try {
      let given: unknown = 'not called';
      const result = await webhooks.around(
        'shop',
        '1.0.0',
        (queue) => ((given = queue), Promise.resolve('changed')),
        () => undefined,
      );
      assert.equal(result, 'changed');
      assert.equal(given, undefined);
      assert.equal(statements(), 1);
    } finally {
      await webhooks.close();
      await opened.close();
    }
  });
}
