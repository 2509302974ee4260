// What an independent review found the registry mishandled, each now as it must be, on the embedded
// database and on a PostgreSQL server: a NUL byte in a path is a 400 naming it; a version diffed with
// itself lists its unstable rules once; a version that fails a rule in every run where the baseline
// passed it in any run (even an unstable baseline) regressed, and `registry diff` exits 1; with
// --private-reads every answer, a bundle's files too, is Cache-Control: private.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main as registryCommand } from '../../../cli/commands/registry.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { MUST_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { scratchDirectory } from '../../support/scratch.ts';

after(() => removeBundles());
const vendor = keyPair();
const rule = MUST_RULES[3] ?? '';
let hour = 0;
const at = (): Date => new Date(Date.UTC(2026, 10, 23, hour++));
const baselinePass = makeBundle({ key: vendor.privateKey, startedAt: at() });
const baselineFail = makeBundle({ key: vendor.privateKey, failing: [rule], startedAt: at() });
const nextFail = makeBundle({ key: vendor.privateKey, failing: [rule], startedAt: at() });
const nextFailAgain = makeBundle({ key: vendor.privateKey, failing: [rule], startedAt: at() });

interface Diff {
  regressed: { ruleId: string; from: string; to: string }[];
  unstable: { ruleId: string; version: string }[];
}

for (const backend of BACKENDS) {
  describe(`the review's findings, ${backend} database`, () => {
    let registry: TestRegistry;
    let privateRegistry: TestRegistry;
    let runId = 0;
    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
      const token = registry.tokens.get('acme') ?? '';
      for (const [bundle, version] of [
        [baselinePass, '1.0.0'],
        [baselineFail, '1.0.0'],
        [nextFail, '1.1.0'],
        [nextFailAgain, '1.1.0'],
      ] as const) {
        const published = await registry.publish(bundle, 'shop', version, token);
        assert.equal(published.status, 201, JSON.stringify(published.json));
        runId = (published.json as { run: { id: number } }).run.id;
      }
      privateRegistry = await startTestRegistry(
        backend,
        { acme: [vendor.publicPem] },
        { privateReads: true },
      );
      const privateToken = privateRegistry.tokens.get('acme') ?? '';
      assert.equal((await privateRegistry.publish(baselinePass, 'shop', '1.0.0', privateToken)).status, 201);
    });
    after(async () => {
      await registry.close();
      await privateRegistry.close();
      if (backend === 'server') await stopBackends();
    });

    test('a NUL byte in a path is a 400 that names it, never a 500', async () => {
      for (const path of [
        `/runs/${runId}/files/conformance%00.json`,
        '/deployments/sh%00op',
        '/api/v1/runs/1%00',
      ]) {
        const answer = await registry.request(path);
        assert.equal(answer.status, 400, `${path}: ${answer.text}`);
        const { code, message } = (answer.json as { error: { code: string; message: string } }).error;
        assert.equal(code, 'bad_path');
        assert.match(message, /NUL byte \(%00\)/);
      }
      assert.equal(
        registry.logs.some((line) => / 500 /.test(line)),
        false,
        registry.logs.join('\n'),
      );
    });

    test('a version diffed with itself lists its unstable rule once', async () => {
      const answer = await registry.request('/api/v1/diff?deployment=shop&from=1.0.0&to=1.0.0');
      const diff = answer.json as Diff;
      assert.deepEqual(
        diff.unstable.map((item) => `${item.ruleId} ${item.version}`),
        [`${rule} 1.0.0`],
      );
      assert.deepEqual(diff.regressed, []);
    });

    test('every run of the new version fails a rule an unstable baseline passed once: regressed, diff exits 1', async (t) => {
      const answer = await registry.request('/api/v1/diff?deployment=shop&from=1.0.0&to=1.1.0');
      const diff = answer.json as Diff;
      assert.deepEqual(
        diff.regressed.map((item) => `${item.ruleId} ${item.from} → ${item.to}`),
        [`${rule} pass/fail → fail`],
      );
      assert.deepEqual(
        diff.unstable.map((item) => `${item.ruleId} ${item.version}`),
        [`${rule} 1.0.0`],
      );
      const printed: string[] = [];
      t.mock.method(console, 'log', (text: string) => printed.push(text));
      t.mock.method(console, 'error', (text: string) => printed.push(text));
      const ca = join(scratchDirectory('registry-hardening-'), 'ca.crt');
      writeFileSync(ca, readFileSync(registry.caPath));
      const code = await registryCommand([
        'diff',
        '--registry',
        registry.registry.url,
        '--ca-file',
        ca,
        '--deployment',
        'shop',
        '--from',
        '1.0.0',
        '--to',
        '1.1.0',
      ]);
      assert.equal(code, 1, printed.join('\n'));
      assert.match(printed.join('\n'), /Regressed \(1\):/);
    });

    test("with --private-reads, a run's files, its page and the API are Cache-Control: private", async () => {
      const token = privateRegistry.tokens.get('acme') ?? '';
      for (const path of ['/runs/1/files/conformance.json', '/runs/1', '/api/v1/runs/1', '/badge/shop.svg']) {
        const answer = await privateRegistry.request(path, { token });
        assert.equal(answer.status, 200, `${path}: ${answer.text}`);
        const cacheControl = answer.headers.get('cache-control') ?? '';
        assert.match(cacheControl, /\bprivate\b|\bno-store\b/, path);
        assert.doesNotMatch(cacheControl, /\bpublic\b/, path);
      }
      const publicFile = await registry.request(`/runs/${runId}/files/conformance.json`);
      assert.match(publicFile.headers.get('cache-control') ?? '', /public/);
    });
  });
}
