// The delivery queue's claims, on both databases: a worker never attempts twice a delivery it has
// in flight, even once its lease lapsed under load (another registry may take it over then), and
// a due delivery that cannot be claimed is looked at again after a pause, not in a loop.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Queryable } from '../../../registry/database/database.ts';
import { addWebhook, claimDue, enqueue, newEventId, nextDue } from '../../../registry/webhooks/store.ts';
import { DeliveryWorker } from '../../../registry/webhooks/worker.ts';
import { BACKENDS, countingStatements, openBackend, stopBackends } from '../support/backends.ts';

after(() => stopBackends());

/** A queue of one delivery, due now, for an operator's webhook. */
async function queueOfOne(db: Queryable): Promise<number> {
  await addWebhook(db, {
    owner: 'ops',
    operator: true,
    deployment: null,
    url: 'https://hooks.example/registry',
    events: ['run.published'],
  });
  const body = JSON.stringify({ event: 'run.published' });
  assert.equal(
    await enqueue(db, [{ event: 'run.published', deployment: 'shop', eventId: newEventId(), body }]),
    1,
  );
  const [row] = await db.query<{ id: number }>('SELECT id FROM webhook_deliveries');
  return row?.id ?? -1;
}

for (const backend of BACKENDS) {
  test(`a delivery in flight is never claimed again by its worker, even once its lease lapsed (${backend})`, async () => {
    const opened = await openBackend(backend);
    try {
      const id = await queueOfOne(opened.db);
      assert.deepEqual(
        (await claimDue(opened.db, 4, 60_000)).map((claimed) => claimed.id),
        [id],
      );
      assert.deepEqual(await claimDue(opened.db, 4, 60_000), [], 'held by its lease');
      await opened.db.query(
        "UPDATE webhook_deliveries SET claimed_until = clock_timestamp() - interval '1 second'",
      );
      assert.deepEqual(await claimDue(opened.db, 4, 60_000, [id]), [], 'not by the worker that holds it');
      assert.equal(await nextDue(opened.db, [id]), undefined, 'nor waited for by it');
      assert.ok(((await nextDue(opened.db))?.getTime() ?? Infinity) <= Date.now(), 'due for the others');
      assert.deepEqual(
        (await claimDue(opened.db, 4, 60_000)).map((claimed) => claimed.id),
        [id],
        'another registry takes a lapsed claim over',
      );
    } finally {
      await opened.close();
    }
  });
}

test('a due delivery whose row another transaction holds is not read in a loop (server)', async () => {
  const opened = await openBackend('server');
  const { db: counted, statements } = countingStatements(opened.db);
  const worker = new DeliveryWorker(counted, { allowedHosts: [] }, () => {});
  try {
    await queueOfOne(opened.db);
    const heldMs = 2_000;
    await opened.db.transaction(async (tx) => {
      await tx.query('SELECT id FROM webhook_deliveries FOR UPDATE');
      worker.kick();
      await new Promise((resolve) => setTimeout(resolve, heldMs));
    });
    // Two statements a look, one look per 100 ms at most: about 40 in 2 s. A re-arm at 0 makes
    // hundreds (each look is two loopback round trips), even on a loaded machine.
    assert.ok(statements() <= 60, `${statements()} statements while the row was held for ${heldMs} ms`);
    // Once the row is free the delivery is attempted (to a host not allowed here) and recorded.
    for (let poll = 0; poll < 100; poll++) {
      const [row] = await opened.db.query<{ attempts: number }>('SELECT attempts FROM webhook_deliveries');
      if ((row?.attempts ?? 0) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [row] = await opened.db.query<{ attempts: number; last_error: string }>(
      'SELECT attempts, last_error FROM webhook_deliveries',
    );
    assert.equal(row?.attempts, 1);
    assert.match(row?.last_error ?? '', /no longer one this registry delivers to/);
  } finally {
    await worker.close();
    await opened.close();
  }
});
