// A run the registry checked itself (`registry recheck`) is stored apart from a publisher's word:
// only the operator's token with a key of the operator's entry (the registry's key) may publish one,
// of a deployment a publisher owns, on its bound target; `can-i-ship --checked-by registry` answers
// from those runs alone, both ways (a vendor's pass does not count, nor does its later failure);
// the API and the pages show the mark. Bundles are made in process (no run of the suite); the
// re-check against a real faulty deployment is tests/registry/recheck.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { main as registryCommand } from '../../../cli/commands/registry.ts';
import { addPublisher } from '../../../registry/publish/publishers.ts';
import { uploadOf } from '../../../registry/publish/upload.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { keyPair, MUST_RULES, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { askShip, type Ship } from '../support/ship.ts';

after(() => removeBundles());
const vendor = keyPair();
const registryKey = keyPair();
const BASE_URL = 'https://api.shop.example/v1';
const at = (hour: number): Date => new Date(Date.UTC(2026, 10, 21, hour));
const vendorPass = makeBundle({ key: vendor.privateKey, baseUrl: BASE_URL, startedAt: at(9) });
const registryPass = makeBundle({ key: registryKey.privateKey, baseUrl: BASE_URL, startedAt: at(10) });
const vendorFail = makeBundle({
  key: vendor.privateKey,
  baseUrl: BASE_URL,
  startedAt: at(11),
  failing: [MUST_RULES[0] ?? ''],
});
const registryElsewhere = makeBundle({
  key: registryKey.privateKey,
  baseUrl: 'https://elsewhere.example/v1',
  startedAt: at(12),
});
/** Signed by the vendor's key, sent with the operator's token: a key the operator's entry does not list. */
const vendorSignedForRegistry = makeBundle({ key: vendor.privateKey, baseUrl: BASE_URL, startedAt: at(13) });

for (const backend of BACKENDS) {
  describe(`runs checked by the registry itself, ${backend} database`, () => {
    let registry: TestRegistry;
    let vendorToken = '';
    let operatorToken = '';
    const post = async (
      bundle: string,
      version: string,
      token: string,
      { deployment = 'shop', targetMoved = false, checkedBy = true } = {},
    ): Promise<{ status: number; json: unknown; text: string }> =>
      registry.request('/api/v1/runs', {
        method: 'POST',
        body: uploadOf(bundle, deployment, version, targetMoved, checkedBy),
        token,
      });
    const ask = (version: string, extra = ''): Promise<Ship> =>
      askShip(registry, `deployment=shop&version=${version}${extra}`);
    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
      vendorToken = registry.tokens.get('acme') ?? '';
      operatorToken = addPublisher(registry.publishersFile, 'ops', [registryKey.publicPem], {
        operator: true,
      }).token;
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('only the operator publishes a registry-checked run, of a published deployment, on its bound target', async () => {
      const byVendor = await post(vendorPass, '1.0.0', vendorToken);
      assert.equal(byVendor.status, 403, byVendor.text);
      assert.match(byVendor.text, /"not_allowed"[\s\S]*Only the registry's operator/);
      const unknown = await post(registryPass, '1.0.0', operatorToken, { deployment: 'nobody' });
      assert.equal(unknown.status, 404, unknown.text);
      assert.match(unknown.text, /"no_such_deployment"/);
      assert.equal((await post(vendorPass, '1.0.0', vendorToken, { checkedBy: false })).status, 201);
      const moved = await post(registryPass, '1.0.0', operatorToken, { targetMoved: true });
      assert.equal(moved.status, 400, moved.text);
      assert.match(moved.text, /never moves the target/);
      const elsewhere = await post(registryElsewhere, '1.0.0', operatorToken);
      assert.equal(elsewhere.status, 409, elsewhere.text);
      assert.match(elsewhere.text, /"target_changed"/);
      const notItsKey = await post(vendorSignedForRegistry, '1.0.0', operatorToken);
      assert.equal(notItsKey.status, 403, notItsKey.text);
      assert.match(notItsKey.text, /"signer_not_trusted"/);
      const bad = await registry.request('/api/v1/runs', {
        method: 'POST',
        body: JSON.stringify({ ...JSON.parse(uploadOf(registryPass, 'shop', '1.0.0')), checkedBy: 'vendor' }),
        token: operatorToken,
      });
      assert.equal(bad.status, 400, bad.text);
      assert.match((bad.json as { error: { message: string } }).error.message, /^"checkedBy" is "registry"/);
      const history = await registry.request('/api/v1/deployments/shop');
      const runs = (history.json as { runs: { checkedBy: string; publisher: string }[] }).runs;
      assert.deepEqual(
        runs.map((run) => [run.publisher, run.checkedBy]),
        [['acme', 'publisher']],
        'nothing refused was stored',
      );
    });

    test("can-i-ship --checked-by registry answers from the registry's runs alone, both ways", async () => {
      const none = await ask('1.0.0', '&checkedBy=registry');
      assert.equal(none.ship, false);
      assert.match(
        none.reason,
        /^No: no run of shop 1\.0\.0 checked by the registry .*; 1 run published by acme does not count\.$/,
      );
      assert.equal((await ask('1.0.0')).ship, true, 'the vendor’s own run answers the plain question');
      const checked = await post(registryPass, '1.0.0', operatorToken);
      assert.equal(checked.status, 201, checked.text);
      const checkedRun = (checked.json as { run: { id: number; checkedBy: string; publisher: string } }).run;
      assert.equal(checkedRun.checkedBy, 'registry');
      assert.equal(checkedRun.publisher, 'ops');
      // A later failure the vendor publishes decides the plain question, and not the registry's.
      assert.equal((await post(vendorFail, '1.0.0', vendorToken, { checkedBy: false })).status, 201);
      const plain = await ask('1.0.0');
      assert.equal(plain.ship, false, plain.reason);
      const registryOnly = await ask('1.0.0', '&checkedBy=registry');
      assert.equal(registryOnly.ship, true, registryOnly.reason);
      assert.equal(registryOnly.run?.id, checkedRun.id);
      assert.match(
        registryOnly.reason,
        new RegExp(`^Yes: run ${checkedRun.id} of shop 1\\.0\\.0 .*checked by the registry\\)`),
      );
      const bad = await registry.request('/api/v1/can-i-ship?deployment=shop&version=1.0.0&checkedBy=acme');
      assert.equal(bad.status, 400, bad.text);
      assert.match(bad.text, /"bad_checked_by"/);
    });

    test('the deployment stays its publisher’s: the vendor still publishes, and the owner is unchanged', async () => {
      const more = await post(
        makeBundle({ key: vendor.privateKey, baseUrl: BASE_URL, startedAt: at(14) }),
        '1.1.0',
        vendorToken,
        { checkedBy: false },
      );
      assert.equal(more.status, 201, more.text);
    });

    test('the pages mark the runs the registry checked, and only those', async () => {
      const history = (await registry.request('/api/v1/deployments/shop')).json as {
        runs: { id: number; checkedBy: string }[];
      };
      const ours = history.runs.filter((run) => run.checkedBy === 'registry');
      const theirs = history.runs.filter((run) => run.checkedBy === 'publisher');
      assert.equal(ours.length, 1);
      const page = (await registry.request('/deployments/shop')).text;
      assert.equal(
        page.match(/class="checked-by-registry"/g)?.length,
        2,
        'its run in the history, its version in the grid',
      );
      assert.doesNotMatch(page, /<script/);
      const ourPage = (await registry.request(`/runs/${ours[0]?.id ?? 0}`)).text;
      assert.match(ourPage, /<dd id="checked-by">\s*<span class="checked-by-registry">the registry<\/span>/);
      const theirPage = (await registry.request(`/runs/${theirs[0]?.id ?? 0}`)).text;
      assert.match(
        theirPage,
        /<dd id="checked-by">\s*its publisher, acme: the signature proves who published/,
      );
      assert.doesNotMatch(theirPage, /class="checked-by-registry"/);
    });

    test('registry can-i-ship --checked-by: registry asks the API; anything else is a usage error', async (t) => {
      const printed: string[] = [];
      t.mock.method(console, 'log', (text: string) => printed.push(text));
      t.mock.method(console, 'error', (text: string) => printed.push(text));
      const shipArgs = (...extra: string[]): string[] => [
        'can-i-ship',
        '--registry',
        registry.registry.url,
        '--ca-file',
        registry.caPath,
        '--deployment',
        'shop',
        '--version',
        '1.0.0',
        ...extra,
      ];
      assert.equal(await registryCommand(shipArgs('--checked-by', 'registry')), 0, printed.join('\n'));
      assert.match(printed.join('\n'), /checked by the registry\)/);
      assert.equal(await registryCommand(shipArgs()), 1, printed.join('\n'));
      assert.equal(await registryCommand(shipArgs('--checked-by', 'acme')), 2);
      assert.match(printed.join('\n'), /--checked-by: "acme" is not "registry"/);
    });
  });
}
