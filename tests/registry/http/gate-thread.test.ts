// The gate port (--gate-port): can-i-ship and the badge served by a thread of their own, on an
// event loop no page shares, on the embedded database (PGlite opened on that thread) and on a
// PostgreSQL server (the thread's own pool). Order and correctness, not time: the gate answers
// while the registry's main thread is blocked outright, and its answer after a publish or a yank
// returned is the new one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { MUST_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { answerWhileBlocked } from '../support/blocked-main-thread.ts';
import type { Ship } from '../support/ship.ts';

after(() => removeBundles());
const vendor = keyPair();
const passing = makeBundle({ key: vendor.privateKey, startedAt: new Date('2026-11-20T09:00:00Z') });
const laterFailing = makeBundle({
  key: vendor.privateKey,
  failing: [MUST_RULES[0] ?? ''],
  startedAt: new Date('2026-11-20T12:00:00Z'),
});
const SHIP = '/api/v1/can-i-ship?deployment=shop&version=1.0.0';

for (const backend of BACKENDS) {
  describe(`the gate port, ${backend} database`, () => {
    let registry: TestRegistry;
    let token: string;
    const ship = async (): Promise<Ship> => {
      const answer = await registry.request(SHIP, { gate: true });
      assert.equal(answer.status, 200, answer.text);
      return answer.json as Ship;
    };

    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem] }, { gateThread: true });
      token = registry.tokens.get('acme') ?? '';
      const published = await registry.publish(passing, 'shop', '1.0.0', token);
      assert.equal(published.status, 201, JSON.stringify(published.json));
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('can-i-ship and the badge answer on the gate port while the main thread is blocked', async () => {
      const ca = readFileSync(registry.caPath, 'utf8');
      const gateUrl = registry.registry.gateUrl ?? '';
      const answer = await answerWhileBlocked(`${gateUrl}${SHIP}`, ca);
      assert.equal(answer.woke, 'ok', `no answer while the main thread was blocked: ${answer.text}`);
      assert.equal(answer.status, 200, answer.text);
      const shipped = JSON.parse(answer.text) as Ship;
      assert.equal(shipped.ship, true, shipped.reason);
      const badge = await answerWhileBlocked(`${gateUrl}/badge/shop.svg`, ca);
      assert.equal(badge.woke, 'ok', badge.text);
      assert.equal(badge.status, 200, badge.text);
      assert.match(badge.text, /^<svg[^>]*>[\s\S]*CONFORMANT/);
    });

    test('the gate port answers as the main port does, and only the gate reads', async () => {
      const questions = [
        SHIP,
        `${SHIP}&profile=strict&protocols=h1`,
        '/api/v1/can-i-ship?deployment=nowhere&version=1.0.0',
        '/api/v1/can-i-ship?deployment=shop',
        '/badge/shop.svg',
        '/badge/nowhere.svg',
      ];
      for (const path of questions) {
        const main = await registry.request(path);
        const gate = await registry.request(path, { gate: true });
        assert.equal(gate.status, main.status, path);
        assert.equal(gate.text, main.text, path);
        assert.equal(gate.headers.get('content-type'), main.headers.get('content-type'), path);
      }
      const page = await registry.request('/deployments/shop', { gate: true });
      assert.equal(page.status, 404, page.text);
      assert.match(page.text, /gate port answers \/api\/v1\/can-i-ship and \/badge\/NAME\.svg only/);
      const post = await registry.request(SHIP, { gate: true, method: 'POST', body: '{}' });
      assert.equal(post.status, 405, post.text);
      const bad = await registry.request('/api/v1/%zz', { gate: true });
      assert.equal(bad.status, 400, bad.text);
    });

    test('after a publish and a yank returned, the gate port answers from them', async () => {
      assert.equal((await ship()).ship, true);
      const failing = await registry.publish(laterFailing, 'shop', '1.0.0', token);
      assert.equal(failing.status, 201, JSON.stringify(failing.json));
      const failingRun = (failing.json as { run: { id: number } }).run.id;
      const after = await ship();
      assert.equal(after.ship, false, after.reason);
      assert.equal(after.run?.id, failingRun, after.reason);
      const yank = await registry.request(`/api/v1/runs/${failingRun}/yank`, {
        method: 'POST',
        body: JSON.stringify({ reason: 'published by mistake' }),
        token,
      });
      assert.equal(yank.status, 200, yank.text);
      const yanked = await ship();
      assert.equal(yanked.ship, true, yanked.reason);
      assert.match(yanked.reason, new RegExp(`yanked, deciding nothing: run ${failingRun}`));
    });
  });
}

describe('the gate port with --private-reads', () => {
  let registry: TestRegistry;
  before(async () => {
    registry = await startTestRegistry(
      'embedded',
      { acme: [vendor.publicPem] },
      { gateThread: true, privateReads: true },
    );
  });
  after(() => registry.close());

  test('every gate read needs a token of the publishers file, and is never cached publicly', async () => {
    const without = await registry.request(SHIP, { gate: true });
    assert.equal(without.status, 401, without.text);
    assert.equal(without.headers.get('www-authenticate'), 'Bearer realm="registry"');
    const token = registry.tokens.get('acme') ?? '';
    const wrong = await registry.request(SHIP, { gate: true, token: `tacr_${'A'.repeat(43)}` });
    assert.equal(wrong.status, 401, wrong.text);
    const withToken = await registry.request(SHIP, { gate: true, token });
    assert.equal(withToken.status, 200, withToken.text);
    assert.match(withToken.headers.get('cache-control') ?? '', /private|no-store/);
    // No token is ever echoed back.
    assert.ok(!withToken.text.includes(token));
    assert.ok(!wrong.text.includes('A'.repeat(43)));
  });
});
