// The live version as a baseline, on the embedded database and on a PostgreSQL server: once a
// release is recorded, `diff` compares with it when no `from` is given, and `can-i-ship
// --replacing-live` says no for a version that may ship by itself but regressed a rule the live
// version passed; without a release both say what to do.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { HTTP_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';

after(() => removeBundles());
const vendor = keyPair();
const httpRule = HTTP_RULES[0] ?? '';
const at = (day: number): Date => new Date(Date.UTC(2026, 10, day));
// Under the default profile an HTTP rule that fails leaves the run CONFORMANT: 1.1.0 may ship by
// itself, yet it fails a rule the live 1.0.0 passed.
const live = makeBundle({ key: vendor.privateKey, profile: 'default', startedAt: at(1) });
const regressing = makeBundle({
  key: vendor.privateKey,
  profile: 'default',
  failing: [httpRule],
  startedAt: at(2),
});
const steady = makeBundle({ key: vendor.privateKey, profile: 'default', startedAt: at(3) });

interface Ship {
  ship: boolean;
  reason: string;
  live?: { version: string; regressed: string[] };
}

for (const backend of BACKENDS) {
  describe(`the live version as the baseline, ${backend} database`, () => {
    let registry: TestRegistry;
    let token: string;
    const ship = async (version: string, replacing = true) => {
      const answer = await registry.request(
        `/api/v1/can-i-ship?deployment=shop&version=${version}${replacing ? '&replacingLive=true' : ''}`,
      );
      return { status: answer.status, text: answer.text, ...(answer.json as Ship) };
    };
    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
      token = registry.tokens.get('acme') ?? '';
      for (const [bundle, version] of [
        [live, '1.0.0'],
        [regressing, '1.1.0'],
        [steady, '1.2.0'],
      ] as const)
        assert.equal((await registry.publish(bundle, 'shop', version, token)).status, 201);
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('without a release, both say what to do', async () => {
      const asked = await ship('1.1.0');
      assert.equal(asked.status, 404);
      assert.match(asked.text, /No release of \\"shop\\" is recorded/);
      const diff = await registry.request('/api/v1/diff?deployment=shop&to=1.1.0');
      assert.equal(diff.status, 400);
      assert.match(diff.text, /Give from=… in the query: no release of \\"shop\\" is recorded/);
      assert.equal(
        (await registry.request('/api/v1/can-i-ship?deployment=shop&version=1.1.0&replacingLive=yes')).status,
        400,
      );
    });

    test('with 1.0.0 live: diff compares with it by default, and can-i-ship --replacing-live refuses a regression', async () => {
      const recorded = await registry.request('/api/v1/deployments/shop/releases', {
        method: 'POST',
        body: JSON.stringify({ version: '1.0.0' }),
        token,
      });
      assert.equal(recorded.status, 201, recorded.text);
      const diff = (await registry.request('/api/v1/diff?deployment=shop&to=1.1.0')).json as {
        from: { version: string };
        regressed: { ruleId: string }[];
      };
      assert.equal(diff.from.version, '1.0.0');
      assert.deepEqual(
        diff.regressed.map((rule) => rule.ruleId),
        [httpRule],
      );

      const alone = await ship('1.1.0', false);
      assert.equal(alone.ship, true, alone.reason);
      assert.equal(alone.live, undefined);
      const replacing = await ship('1.1.0');
      assert.equal(replacing.ship, false, replacing.reason);
      assert.deepEqual(replacing.live, { version: '1.0.0', regressed: [httpRule] });
      assert.match(
        replacing.reason,
        new RegExp(
          `^No: shop 1\\.1\\.0 may ship by itself \\(run \\d+ .*but it would replace the live 1\\.0\\.0, and 1 rule regressed from it: ${httpRule}`,
        ),
      );

      const clean = await ship('1.2.0');
      assert.equal(clean.ship, true, clean.reason);
      assert.match(clean.reason, /It would replace the live 1\.0\.0: no rule regressed from it\.$/);
    });
  });
}
