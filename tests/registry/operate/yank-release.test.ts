// `registry yank` and `registry record-release` through the API, on the embedded database and on a
// PostgreSQL server: a yanked run is kept and shown as yanked (API, pages) and decides nothing
// (can-i-ship, diff, badge, certified list); a release makes the live version's verdict the page's
// and the badge's; both are audited (who, when, why) in a list only the operator reads; and who may
// do each is checked (the deployment's publisher or the operator, never another publisher).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addPublisher } from '../../../registry/publish/publishers.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { MUST_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';

after(() => removeBundles());
const vendor = keyPair();
const stranger = keyPair();
const mustRule = MUST_RULES[3] ?? '';
const passing = makeBundle({ key: vendor.privateKey, startedAt: new Date('2026-11-20T09:00:00Z') });
const failing = makeBundle({
  key: vendor.privateKey,
  failing: [mustRule],
  startedAt: new Date('2026-11-20T12:00:00Z'),
});
const next = makeBundle({ key: vendor.privateKey, startedAt: new Date('2026-11-21T09:00:00Z') });
const nextFailing = makeBundle({
  key: vendor.privateKey,
  failing: [mustRule],
  startedAt: new Date('2026-11-22T09:00:00Z'),
});

interface RunJson {
  id: number;
  verdict: string;
  yanked: { at: string; by: string; reason: string } | null;
}
interface Ship {
  ship: boolean;
  reason: string;
  run?: { id: number };
}

for (const backend of BACKENDS) {
  describe(`yanks and releases on the ${backend} database`, () => {
    let registry: TestRegistry;
    let token: string;
    let operator: string;
    let other: string;
    const ids: Record<string, number> = {};
    const post = (path: string, body: unknown, as: string | undefined) =>
      registry.request(path, {
        method: 'POST',
        body: JSON.stringify(body),
        ...(as !== undefined ? { token: as } : {}),
      });
    const ship = async (version: string): Promise<Ship> =>
      (await registry.request(`/api/v1/can-i-ship?deployment=shop&version=${version}`)).json as Ship;

    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem], globex: [stranger.publicPem] });
      token = registry.tokens.get('acme') ?? '';
      other = registry.tokens.get('globex') ?? '';
      operator = addPublisher(registry.publishersFile, 'ops', [], { operator: true }).token;
      for (const [name, bundle, version] of [
        ['passing', passing, '1.0.0'],
        ['failing', failing, '1.0.0'],
        ['next', next, '1.1.0'],
        ['nextFailing', nextFailing, '1.2.0'],
      ] as const) {
        const answer = await registry.publish(bundle, 'shop', version, token);
        assert.equal(answer.status, 201, JSON.stringify(answer.json));
        ids[name] = (answer.json as { run: { id: number } }).run.id;
      }
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('before a yank, the newer failing run decides 1.0.0 and makes its rule unstable', async () => {
      assert.equal((await ship('1.0.0')).ship, false);
      const diff = await registry.request('/api/v1/diff?deployment=shop&from=1.0.0&to=1.1.0');
      const unstable = (diff.json as { unstable: { ruleId: string }[] }).unstable.map((rule) => rule.ruleId);
      assert.deepEqual(unstable, [mustRule]);
    });

    test('a yank needs a token, a reason, and the deployment’s publisher or the operator', async () => {
      const path = `/api/v1/runs/${ids.failing}/yank`;
      assert.equal((await post(path, { reason: 'forged' }, undefined)).status, 401);
      const stranger = await post(path, { reason: 'forged' }, other);
      assert.equal(stranger.status, 403, stranger.text);
      assert.match(stranger.text, /globex is not the publisher of \\"shop\\"/);
      const noReason = await post(path, {}, token);
      assert.equal(noReason.status, 400);
      assert.match(noReason.text, /Give the reason/);
      const twoLines = await post(path, { reason: 'a\nb' }, token);
      assert.equal(twoLines.status, 400);
      assert.equal((await post('/api/v1/runs/999999/yank', { reason: 'x' }, operator)).status, 404);
      assert.equal((await registry.request(path, { token })).status, 405);
      // Nothing above yanked it.
      assert.equal((await ship('1.0.0')).ship, false);
    });

    test('a yanked run is kept, shown as yanked, and decides nothing', async () => {
      const answer = await post(
        `/api/v1/runs/${ids.failing}/yank`,
        { reason: 'published by mistake' },
        token,
      );
      assert.equal(answer.status, 200, answer.text);
      const { run } = answer.json as { run: RunJson };
      assert.equal(run.yanked?.by, 'acme');
      assert.equal(run.yanked?.reason, 'published by mistake');
      const again = await post(`/api/v1/runs/${ids.failing}/yank`, { reason: 'again' }, operator);
      assert.equal(again.status, 409, again.text);

      const shipped = await ship('1.0.0');
      assert.equal(shipped.ship, true, shipped.reason);
      assert.equal(shipped.run?.id, ids.passing);
      assert.match(
        shipped.reason,
        new RegExp(`yanked, deciding nothing: run ${ids.failing}, "published by mistake"`),
      );
      const diff = await registry.request('/api/v1/diff?deployment=shop&from=1.0.0&to=1.1.0');
      const result = diff.json as { unstable: unknown[]; from: { runs: number[] } };
      assert.deepEqual(result.unstable, []);
      assert.deepEqual(result.from.runs, [ids.passing]);

      const history = (await registry.request('/api/v1/deployments/shop')).json as { runs: RunJson[] };
      const kept = history.runs.find((item) => item.id === ids.failing);
      assert.equal(kept?.yanked?.reason, 'published by mistake', 'the run is kept in the history');
      const page = await registry.request(`/runs/${ids.failing}`);
      assert.match(page.text, /<dd id="yanked">\s*at \S+ by acme: published by mistake/);
      const deploymentPage = await registry.request('/deployments/shop');
      assert.match(deploymentPage.text, /yanked: published by mistake/);
    });

    test('the operator yanks any run; every run of a version yanked answers no, saying so', async () => {
      const answer = await post(
        `/api/v1/runs/${ids.nextFailing}/yank`,
        { reason: 'forged outcomes' },
        operator,
      );
      assert.equal(answer.status, 200, answer.text);
      const shipped = await ship('1.2.0');
      assert.equal(shipped.ship, false);
      assert.match(shipped.reason, /^No: every run of shop 1\.2\.0 is yanked/);
      const diff = await registry.request('/api/v1/diff?deployment=shop&from=1.1.0&to=1.2.0');
      assert.equal(diff.status, 404);
      // The badge was 1.2.0's failing run; yanked, the latest run that stands is 1.1.0's.
      assert.match((await registry.request('/badge/shop.svg')).text, /aria-label="[^"]*: CONFORMANT/);
    });

    test('a release: the deployment’s publisher records it, the page, API and badge show the live version', async () => {
      const fresh = await registry.publish(
        makeBundle({
          key: vendor.privateKey,
          failing: [mustRule],
          startedAt: new Date('2026-11-23T09:00:00Z'),
        }),
        'shop',
        '1.3.0',
        token,
      );
      assert.equal(fresh.status, 201);
      // Without a release, the badge is the latest run's: 1.3.0, failing.
      assert.match((await registry.request('/badge/shop.svg')).text, /aria-label="[^"]*: NOT CONFORMANT/);
      assert.equal(
        (await post('/api/v1/deployments/shop/releases', { version: '1.0.0' }, other)).status,
        403,
      );
      const unknown = await post('/api/v1/deployments/shop/releases', { version: '9.9.9' }, token);
      assert.equal(unknown.status, 404);
      assert.match(unknown.text, /No run of shop 9\.9\.9 has been published/);
      assert.equal(
        (await post('/api/v1/deployments/shop/releases', { version: "1'; --" }, token)).status,
        400,
      );
      const recorded = await post('/api/v1/deployments/shop/releases', { version: '1.0.0' }, token);
      assert.equal(recorded.status, 201, recorded.text);

      const history = (await registry.request('/api/v1/deployments/shop')).json as {
        live: { version: string; recordedBy: string; run: RunJson };
      };
      assert.equal(history.live.version, '1.0.0');
      assert.equal(history.live.recordedBy, 'acme');
      assert.equal(history.live.run.id, ids.passing, 'the yanked run never decides the live version');
      assert.match((await registry.request('/badge/shop.svg')).text, /aria-label="[^"]*: CONFORMANT/);
      const page = await registry.request('/deployments/shop');
      assert.match(
        page.text,
        new RegExp(`<p id="live">\\s*Live: <strong>1\\.0\\.0</strong>[^]*run ${ids.passing}: CONFORMANT`),
      );
      // A rollback is a new record; the newest is live.
      assert.equal(
        (await post('/api/v1/deployments/shop/releases', { version: '1.3.0' }, operator)).status,
        201,
      );
      assert.match((await registry.request('/badge/shop.svg')).text, /aria-label="[^"]*: NOT CONFORMANT/);
    });

    test('the audit list: who, when, what and why, for the operator only', async () => {
      assert.equal((await registry.request('/api/v1/audit', { token })).status, 403);
      assert.equal((await registry.request('/api/v1/audit')).status, 401);
      const answer = await registry.request('/api/v1/audit?limit=10', { token: operator });
      assert.equal(answer.status, 200, answer.text);
      const entries = (
        answer.json as {
          entries: { actor: string; action: string; subject: string; reason: string | null; at: string }[];
        }
      ).entries;
      assert.deepEqual(
        entries.map(({ actor, action, subject, reason }) => ({ actor, action, subject, reason })),
        [
          { actor: 'ops', action: 'release', subject: 'deployment shop', reason: null },
          { actor: 'acme', action: 'release', subject: 'deployment shop', reason: null },
          { actor: 'ops', action: 'yank', subject: `run ${ids.nextFailing}`, reason: 'forged outcomes' },
          { actor: 'acme', action: 'yank', subject: `run ${ids.failing}`, reason: 'published by mistake' },
        ],
      );
      for (const entry of entries) assert.ok(!Number.isNaN(Date.parse(entry.at)));
      assert.equal((answer.json as { next: string | null }).next, null, 'the whole list on one page');
      // A page at a time: the next path (and Link header) of each page leads to the rest, in order.
      const paged: string[] = [];
      let path: string | null = '/api/v1/audit?limit=3';
      for (let page = 0; path !== null && page < 5; page += 1) {
        const each = await registry.request(path, { token: operator });
        assert.equal(each.status, 200, each.text);
        const body = each.json as { entries: { subject: string }[]; next: string | null };
        paged.push(...body.entries.map(({ subject }) => subject));
        assert.equal(each.headers.get('link'), body.next === null ? null : `<${body.next}>; rel="next"`);
        path = body.next;
      }
      assert.equal(path, null);
      assert.deepEqual(
        paged,
        entries.map(({ subject }) => subject),
      );
      assert.equal((await registry.request('/api/v1/audit?limit=0', { token: operator })).status, 400);
      const versionsCursor = Buffer.from(JSON.stringify(['versions', 1])).toString('base64url');
      const wrongList = await registry.request(`/api/v1/audit?cursor=${versionsCursor}`, { token: operator });
      assert.deepEqual(
        [wrongList.status, (wrongList.json as { error: { code: string } }).error.code],
        [400, 'bad_cursor'],
      );
      // No token in any log line.
      for (const secret of [token, operator, other])
        assert.ok(!registry.logs.some((line) => line.includes(secret)));
    });
  });
}
