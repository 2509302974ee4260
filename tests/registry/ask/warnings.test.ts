// Every warning `verify` prints of a run travels with it: in the API's run, on the pages, in
// can-i-ship's sentence; and `can-i-ship --no-warnings` refuses a run with any — on the embedded
// database and on a PostgreSQL server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimWarnings } from '../../../conformance/attestation/claim-warnings.ts';
import { escapeHtml } from '../../../registry/web/html.ts';
import { main as registryCommand } from '../../../cli/commands/registry.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { askShip, type Ship } from '../support/ship.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDirectory } from '../../support/scratch.ts';

after(() => removeBundles());
const vendor = keyPair();
// A run against 127.0.0.1 through a host map, trusted through a private CA: VERIFIED and
// CONFORMANT, and verify warns of both.
const mapped = makeBundle({
  key: vendor.privateKey,
  hosts: { 'api.acme.example': '127.0.0.1' },
  caFile: '/etc/acme/private-ca.crt',
  startedAt: new Date('2026-11-21T10:00:00Z'),
});
const clean = makeBundle({ key: vendor.privateKey, startedAt: new Date('2026-11-21T11:00:00Z') });
const expected = claimWarnings(
  JSON.parse(readFileSync(join(mapped, 'conformance.json'), 'utf8')) as Parameters<typeof claimWarnings>[0],
);

for (const backend of BACKENDS) {
  describe(`verify's warnings travel with the run, ${backend} database`, () => {
    let registry: TestRegistry;
    let runId = 0;
    const ask = (version: string, extra = ''): Promise<Ship> =>
      askShip(registry, `deployment=shop&version=${version}${extra}`);
    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
      const token = registry.tokens.get('acme') ?? '';
      const published = await registry.publish(mapped, 'shop', '1.0.0', token);
      assert.equal(published.status, 201, JSON.stringify(published.json));
      runId = (published.json as { run: { id: number } }).run.id;
      assert.equal((await registry.publish(clean, 'shop', '2.0.0', token)).status, 201);
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('the warnings are those verify prints, kept with the run in the API', async () => {
      assert.ok(expected.length >= 2, expected.join('\n'));
      assert.ok(expected.some((warning) => warning.includes('127.0.0.1')));
      assert.ok(expected.some((warning) => warning.includes('private CA')));
      const detail = await registry.request(`/api/v1/runs/${runId}`);
      assert.deepEqual((detail.json as { run: { warnings: string[] } }).run.warnings, expected);
      const history = await registry.request('/api/v1/deployments/shop');
      const runs = (history.json as { runs: { id: number; warnings: string[] }[] }).runs;
      assert.deepEqual(runs.find((run) => run.id === runId)?.warnings, expected);
      assert.deepEqual(runs.find((run) => run.id !== runId)?.warnings, []);
    });

    test('the pages show them: the run, the history and the certified list', async () => {
      const runPage = await registry.request(`/runs/${runId}`);
      for (const warning of expected.map(escapeHtml)) assert.ok(runPage.text.includes(warning), warning);
      assert.ok((await registry.request('/deployments/shop')).text.includes(`${expected.length} warnings`));
      const certified = await registry.request('/');
      assert.match(certified.text, /verify warns/);
    });

    test("can-i-ship's sentence says them; --no-warnings refuses the run, and not a clean one", async () => {
      const plain = await ask('1.0.0');
      assert.equal(plain.ship, true, plain.reason);
      assert.ok(
        plain.reason.includes(`verify warns of it (${expected.length}): ${expected.join(' ')}`),
        plain.reason,
      );
      const strict = await ask('1.0.0', '&noWarnings=true');
      assert.equal(strict.ship, false);
      assert.match(strict.reason, /^No: run \d+ .* but no warning was allowed \(--no-warnings\)/);
      const cleanAnswer = await ask('2.0.0', '&noWarnings=true');
      assert.equal(cleanAnswer.ship, true, cleanAnswer.reason);
      assert.doesNotMatch(cleanAnswer.reason, /warn/);
    });

    test('registry can-i-ship --no-warnings exits 1 for the warned run, 0 for the clean one', async (t) => {
      const printed: string[] = [];
      t.mock.method(console, 'log', (text: string) => printed.push(text));
      t.mock.method(console, 'error', (text: string) => printed.push(text));
      const directory = scratchDirectory('registry-warnings-');
      const ca = join(directory, 'ca.crt');
      writeFileSync(ca, readFileSync(registry.caPath));
      const shipArgs = (version: string): string[] => [
        'can-i-ship',
        '--registry',
        registry.registry.url,
        '--ca-file',
        ca,
        '--deployment',
        'shop',
        '--version',
        version,
        '--no-warnings',
      ];
      assert.equal(await registryCommand(shipArgs('1.0.0')), 1, printed.join('\n'));
      assert.match(printed.join('\n'), /no warning was allowed/);
      assert.equal(await registryCommand(shipArgs('2.0.0')), 0, printed.join('\n'));
    });
  });
}
