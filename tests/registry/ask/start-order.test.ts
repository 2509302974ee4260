// The run's own signed start time orders the runs of a version, not the order of upload: a run
// older than the newest stored run of its version is stored, never decides, and the answers name
// the run that does — on the embedded database and on a PostgreSQL server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { MUST_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';

after(() => removeBundles());
const vendor = keyPair();
const mustRule = MUST_RULES[2] ?? '';
const newerFailing = makeBundle({
  key: vendor.privateKey,
  failing: [mustRule],
  startedAt: new Date('2026-11-20T12:00:00Z'),
});
const olderPassing = makeBundle({ key: vendor.privateKey, startedAt: new Date('2026-11-20T09:00:00Z') });

interface Published {
  decides: boolean;
  note?: string;
  run: { id: number };
}

for (const backend of BACKENDS) {
  describe(`runs ordered by their start time, ${backend} database`, () => {
    let registry: TestRegistry;
    let failing: Published;
    let passing: Published;
    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
      const token = registry.tokens.get('acme') ?? '';
      const first = await registry.publish(newerFailing, 'shop', '1.2.0', token);
      assert.equal(first.status, 201, JSON.stringify(first.json));
      failing = first.json as Published;
      // Published after, but started three hours before: an old run sent late.
      const second = await registry.publish(olderPassing, 'shop', '1.2.0', token);
      assert.equal(second.status, 201, JSON.stringify(second.json));
      passing = second.json as Published;
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('the older run published last is stored but does not decide, and the publish says so', () => {
      assert.equal(failing.decides, true);
      assert.equal(passing.decides, false);
      assert.match(
        passing.note ?? '',
        new RegExp(
          `^Run ${passing.run.id} started at 2026-11-20T09:00:00\\.000Z, before run ${failing.run.id} .*never decides`,
        ),
      );
    });

    test('can-i-ship answers by the newest run by start time, and names it and the late one', async () => {
      const answer = await registry.request('/api/v1/can-i-ship?deployment=shop&version=1.2.0');
      const { ship, reason, run } = answer.json as { ship: boolean; reason: string; run: { id: number } };
      assert.equal(ship, false, reason);
      assert.equal(run.id, failing.run.id);
      assert.match(
        reason,
        new RegExp(`run ${failing.run.id} \\(started 2026-11-20T12:00:00\\.000Z\\), decides`),
      );
      assert.match(
        reason,
        new RegExp(`run ${passing.run.id}, started 2026-11-20T09:00:00\\.000Z, published later`),
      );
    });

    test('the badge and the certified list follow the start time too', async () => {
      const badge = await registry.request('/badge/shop.svg');
      assert.match(badge.text, /NOT CONFORMANT/);
      const certified = await registry.request('/api/v1/deployments');
      assert.deepEqual((certified.json as { certified: unknown[] }).certified, []);
    });
  });
}
