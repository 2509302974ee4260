// can-i-ship and the badge never queue behind pages. On a PostgreSQL server they have connections
// of their own: can-i-ship answers over HTTPS while every connection of the main pool is held by a
// page waiting on a lock. On the embedded database (one connection) they are first in line: a gate
// read asked after three other statements runs before them once the statement under way ends.
// Ordering, not time: each test holds the other work until the gate read has answered.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import pg from 'pg';
import { PriorityLane, type Lane } from '../../../registry/database/priority-lane.ts';
import { openBackend, stopBackends } from '../support/backends.ts';
import { startTestRegistry } from '../support/registry.ts';
import { seedRuns } from '../support/seed.ts';

/** A promise and the function that resolves it. */
function held(): { promise: Promise<void>; release: () => void } {
  let release = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

describe('the gate lane', () => {
  after(() => stopBackends());

  test('PriorityLane: one at a time; a waiting gate read goes first, each lane in arrival order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Lane>('gate', 'other'), { maxLength: 30 }), async (lanes) => {
        const lane = new PriorityLane();
        const first = held();
        let inFlight = 0;
        let most = 0;
        const order: number[] = [];
        const holding = lane.run('other', () => first.promise);
        // Every one of `lanes` arrives while the first holds the connection.
        const all = lanes.map((which, index) =>
          lane.run(which, async () => {
            inFlight++;
            most = Math.max(most, inFlight);
            await Promise.resolve();
            order.push(index);
            inFlight--;
          }),
        );
        first.release();
        await Promise.all([holding, ...all]);
        const indexes = lanes.map((_, index) => index);
        const expected = [
          ...indexes.filter((index) => lanes[index] === 'gate'),
          ...indexes.filter((index) => lanes[index] === 'other'),
        ];
        assert.deepEqual(order, expected);
        assert.ok(most <= 1, `${most} statements ran at once on one connection`);
      }),
      { numRuns: 200 },
    );
  });

  for (const [where, threaded] of [
    ['in this thread', false],
    ['held by the gate thread (--gate-port), reached by message', true],
  ] as const)
    test(`embedded database ${where}: a gate read asked after three statements runs before them`, async () => {
      const opened = await openBackend('embedded', true, {}, threaded);
      try {
        const transaction = held();
        const order: string[] = [];
        // A transaction under way holds the one connection until it is released.
        const holding = opened.db.transaction(async (tx) => {
          await tx.query('SELECT 1');
          await transaction.promise;
        });
        const pages = [1, 2, 3].map((n) =>
          opened.db.query('SELECT $1::int AS n', [n]).then(() => order.push(`page ${n}`)),
        );
        const gate = opened.db.gate.query('SELECT 1').then(() => order.push('gate'));
        transaction.release();
        await Promise.all([holding, gate, ...pages]);
        assert.deepEqual(order, ['gate', 'page 1', 'page 2', 'page 3']);
      } finally {
        await opened.close();
      }
    });

  test('PostgreSQL server: can-i-ship and the badge answer while pages hold every connection of the pool', async () => {
    const registry = await startTestRegistry('server', {}, { pools: { poolSize: 2, gatePoolSize: 1 } });
    const url = registry.backend.where.databaseUrl ?? '';
    const holder = new pg.Client({ connectionString: url });
    const watcher = new pg.Client({ connectionString: url });
    await holder.connect();
    await watcher.connect();
    try {
      await seedRuns(registry.backend.db, { prefix: 'g', deployments: 2, runs: 4, outcomes: 1 });
      // A deployment's page reads its target moves; can-i-ship and the badge never do.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE target_moves IN ACCESS EXCLUSIVE MODE');
      let settled = 0;
      const pages = Array.from({ length: 4 }, () =>
        registry.request('/deployments/g0').finally(() => settled++),
      );
      // Both connections of the main pool wait on the lock (two more pages wait for one).
      let waiting = 0;
      for (let attempt = 0; attempt < 600 && waiting < 2; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const [row] = (
          await watcher.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%target_moves%'",
          )
        ).rows;
        waiting = row?.n ?? 0;
      }
      assert.equal(waiting, 2, 'the pages never held both connections of the pool');
      const ship = await registry.request('/api/v1/can-i-ship?deployment=g0&version=1.0.0');
      assert.equal(ship.status, 200, ship.text);
      assert.equal((ship.json as { ship: boolean }).ship, true, ship.text);
      const badge = await registry.request('/badge/g0.svg');
      assert.equal(badge.status, 200, badge.text);
      assert.equal(settled, 0, 'a page answered while its lock was held');
      await holder.query('ROLLBACK');
      for (const page of await Promise.all(pages)) assert.equal(page.status, 200, page.text);
    } finally {
      await holder.end();
      await watcher.end();
      await registry.close();
    }
  });
});
