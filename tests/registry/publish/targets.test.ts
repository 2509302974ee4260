// A deployment is bound to its target — the base URL and the other tenant's host — at its first
// run: a run of another target is refused (409 target_changed) unless the publisher says the target
// moved, and each move shows in the history and in a diff across it. On the embedded database and on
// a PostgreSQL server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { uploadOf } from '../../../registry/publish/upload.ts';
import { storedCounts } from '../../../registry/store/runs.ts';
import { publishAfterRun, takePublishOptions } from '../../../cli/commands/registry-run-publish.ts';
import { scratchDirectory } from '../../support/scratch.ts';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

after(() => removeBundles());
const vendor = keyPair();
let hour = 0;
const at = (): Date => new Date(Date.UTC(2026, 10, 22, hour++));
const first = makeBundle({ key: vendor.privateKey, otherTenant: 'globex.acme.example:443', startedAt: at() });
const sameTarget = makeBundle({
  key: vendor.privateKey,
  otherTenant: 'globex.acme.example:443',
  startedAt: at(),
});
const otherBase = makeBundle({
  key: vendor.privateKey,
  baseUrl: 'https://api.acme.example/v2',
  otherTenant: 'globex.acme.example:443',
  startedAt: at(),
});
const otherTenant = makeBundle({
  key: vendor.privateKey,
  otherTenant: 'initech.acme.example:443',
  startedAt: at(),
});

/** A run of the first target, after the move to v2: sent by run --publish with the move said. */
const movedBack = makeBundle({
  key: vendor.privateKey,
  otherTenant: 'globex.acme.example:443',
  startedAt: at(),
});
const oldTargetAgain = makeBundle({
  key: vendor.privateKey,
  otherTenant: 'globex.acme.example:443',
  startedAt: at(),
});

interface History {
  target: { baseUrl: string; otherTenant: string | null };
  targetMoves: { from: { baseUrl: string }; to: { baseUrl: string }; publisher: string; runId: number }[];
}

for (const backend of BACKENDS) {
  describe(`a deployment bound to its target, ${backend} database`, () => {
    let registry: TestRegistry;
    let token = '';
    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
      token = registry.tokens.get('acme') ?? '';
      assert.equal((await registry.publish(first, 'shop', '1.0.0', token)).status, 201);
      assert.equal((await registry.publish(sameTarget, 'shop', '1.1.0', token)).status, 201);
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('the first run binds the deployment: its base URL and the other tenant are in the history', async () => {
      const history = (await registry.request('/api/v1/deployments/shop')).json as History;
      assert.deepEqual(history.target, {
        baseUrl: 'https://api.acme.example/v1',
        otherTenant: 'globex.acme.example:443',
      });
      assert.deepEqual(history.targetMoves, []);
    });

    test('a run of another base URL, or another tenant, is refused and nothing is stored', async () => {
      const before = await storedCounts(registry.backend.db);
      for (const bundle of [otherBase, otherTenant]) {
        const refused = await registry.publish(bundle, 'shop', '1.2.0', token);
        assert.equal(refused.status, 409, JSON.stringify(refused.json));
        const { code, message } = (refused.json as { error: { code: string; message: string } }).error;
        assert.equal(code, 'target_changed');
        assert.match(
          message,
          /is bound to the target https:\/\/api\.acme\.example\/v1 \(other tenant: globex/,
        );
        assert.match(message, /--target-moved/);
      }
      assert.deepEqual(await storedCounts(registry.backend.db), before);
    });

    test('with targetMoved the run is stored, the deployment rebound, and the move is in the history and the diff', async () => {
      const moved = await registry.request('/api/v1/runs', {
        method: 'POST',
        body: uploadOf(otherBase, 'shop', '2.0.0', true),
        token,
      });
      assert.equal(moved.status, 201, moved.text);
      const runId = (moved.json as { run: { id: number } }).run.id;
      const history = (await registry.request('/api/v1/deployments/shop')).json as History;
      assert.equal(history.target.baseUrl, 'https://api.acme.example/v2');
      assert.equal(history.targetMoves.length, 1);
      assert.equal(history.targetMoves[0]?.from.baseUrl, 'https://api.acme.example/v1');
      assert.equal(history.targetMoves[0]?.to.baseUrl, 'https://api.acme.example/v2');
      assert.equal(history.targetMoves[0]?.runId, runId);
      assert.equal(history.targetMoves[0]?.publisher, 'acme');
      const page = await registry.request('/deployments/shop');
      assert.match(page.text, /id="target-moves"/);
      assert.match(page.text, /https:\/\/api\.acme\.example\/v1 .*→ https:\/\/api\.acme\.example\/v2/);
      const diff = await registry.request('/api/v1/diff?deployment=shop&from=1.1.0&to=2.0.0');
      const changed = (diff.json as { targetChanged?: { from: string[]; to: string[] } }).targetChanged;
      assert.match(changed?.from.join() ?? '', /v1/);
      assert.match(changed?.to.join() ?? '', /v2/);
      // The old target is now the other one: a run of it is refused in turn.
      const back = await registry.publish(oldTargetAgain, 'shop', '2.1.0', token);
      assert.equal(back.status, 409);
      assert.equal((back.json as { error: { code: string } }).error.code, 'target_changed');
    });

    test('run --publish says the target moved with --publish-target-moved, and only then', async (t) => {
      t.mock.method(console, 'log', () => undefined);
      t.mock.method(console, 'error', () => undefined);
      const tokenFile = join(scratchDirectory('run-publish-moved-'), 'token');
      writeFileSync(tokenFile, token, { mode: 0o600 });
      const argv = (...extra: string[]) => [
        '--profile',
        'strict',
        '--publish',
        registry.registry.url,
        '--publish-deployment',
        'shop',
        '--publish-version',
        '3.0.0',
        '--publish-token-file',
        tokenFile,
        '--publish-ca-file',
        registry.caPath,
        ...extra,
      ];
      const plain = takePublishOptions(argv());
      const moved = takePublishOptions(argv('--publish-target-moved'));
      assert.ok(typeof plain !== 'string' && plain.publish && typeof moved !== 'string' && moved.publish);
      assert.equal(plain.publish.targetMoved, undefined);
      assert.equal(moved.publish.targetMoved, true);
      assert.deepEqual(moved.rest, ['--profile', 'strict'], 'the run never sees a publish option');
      // The deployment is bound to v2 now; this run checked v1 again (a real move back).
      const reports = dirname(movedBack);
      assert.equal(await publishAfterRun(plain.publish, 0, reports), 3, 'refused: the publish failed');
      assert.equal(await publishAfterRun(moved.publish, 0, reports), 0);
      const history = (await registry.request('/api/v1/deployments/shop')).json as History;
      assert.equal(history.target.baseUrl, 'https://api.acme.example/v1');
      assert.equal(history.targetMoves.at(-1)?.to.baseUrl, 'https://api.acme.example/v1');
    });
  });
}

test('--publish-target-moved: without --publish, or with a value, is a usage error', () => {
  assert.equal(
    takePublishOptions(['--publish-target-moved']),
    '--publish-target-moved goes with --publish URL.',
  );
  assert.equal(
    takePublishOptions([
      '--publish',
      'https://r.example',
      '--publish-deployment',
      'shop',
      '--publish-version',
      '1',
      '--publish-target-moved=yes',
    ]),
    '--publish-target-moved takes no value.',
  );
});
