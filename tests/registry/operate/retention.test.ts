// The retention policy for bundle files, on the embedded database and on a PostgreSQL server. Over
// generated histories (versions, profiles, start times, yanks) and policies (keep the last N, a
// maximum age, both), a pass removes exactly the files the policy names — beyond the newest N of
// the deployment or older than the age — and never those of a run can-i-ship answers with, for any
// version and profile; the run rows and rule outcomes stay. Through the API: a dry run removes
// nothing, a pass is the operator's only and audited, and a removed file answers 410, not 404.
import { bundleFileNames } from '../../../registry/store/bundle-files.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canIShip } from '../../../registry/ask/can-i-ship.ts';
import { addPublisher } from '../../../registry/publish/publishers.ts';
import { applyRetention } from '../../../registry/store/retention.ts';
import { outcomesOf, runsOf, storeRun, type RunFacts } from '../../../registry/store/runs.ts';
import { yankRun } from '../../../registry/store/yanks.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { runFacts, sha256 } from '../support/run-facts.ts';

after(() => removeBundles());
const vendor = keyPair();
const DAY = 86_400_000;
const NOW = new Date('2026-12-31T00:00:00Z');

interface GeneratedRun {
  version: string;
  profile: 'default' | 'strict';
  daysAgo: number;
  yanked: boolean;
}

function facts(deployment: string, run: GeneratedRun): RunFacts {
  return runFacts(deployment, {
    version: run.version,
    profile: run.profile,
    startedAt: new Date(NOW.getTime() - run.daysAgo * DAY).toISOString(),
  });
}

const generatedRun = fc.record({
  version: fc.constantFrom('1.0.0', '1.1.0', '2.0.0'),
  profile: fc.constantFrom('default' as const, 'strict' as const),
  daysAgo: fc.integer({ min: 0, max: 60 }),
  yanked: fc.boolean(),
});
const policy = fc
  .record({
    keepLast: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    maxAgeDays: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
  })
  .filter((p) => p.keepLast !== undefined || p.maxAgeDays !== undefined)
  .map((p) => ({
    ...(p.keepLast !== undefined ? { keepLast: p.keepLast } : {}),
    ...(p.maxAgeDays !== undefined ? { maxAgeDays: p.maxAgeDays } : {}),
  }));

for (const backend of BACKENDS) {
  describe(`the retention policy on the ${backend} database`, () => {
    let registry: TestRegistry;
    let operator: string;
    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
      operator = addPublisher(registry.publishersFile, 'ops', [], { operator: true }).token;
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('a pass removes the files the policy names, never a deciding run’s, and keeps every row', async () => {
      const { db } = registry.backend;
      let deployments = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(generatedRun, { minLength: 1, maxLength: 7 }),
          policy,
          async (runs, chosen) => {
            const deployment = `gen-${++deployments}`;
            const ids: number[] = [];
            for (const [index, run] of runs.entries()) {
              const content = Buffer.from(`run ${index} of ${deployment}`);
              const stored = await storeRun(
                db,
                facts(deployment, run),
                {
                  sha256: sha256(`bundle ${index} of ${deployment}`),
                  files: [{ name: 'conformance.json', sha256: sha256(content.toString()), content }],
                },
                [{ ruleId: 'AUTH-A', level: 'MUST', protocol: 'all', verdict: 'pass' }],
              );
              ids.push(stored.run.id);
              if (run.yanked) await yankRun(db, stored.run.id, 'acme', 'generated');
            }
            // Earlier deployments were pruned already by earlier policies: only this one is judged.
            const { runs: removed } = await applyRetention(db, chosen, 'ops', { now: NOW });
            const mine = new Set(removed.filter((id) => ids.includes(id)));
            // The policy's own words, for this deployment: newest first by start time, then id.
            const byRecency = ids
              .map((id, index) => ({ id, run: runs[index] as GeneratedRun }))
              .sort((a, b) => a.run.daysAgo - b.run.daysAgo || b.id - a.id);
            const deciding = new Set<number>();
            for (const version of ['1.0.0', '1.1.0', '2.0.0'])
              for (const profile of ['default', 'strict'] as const) {
                const answer = await canIShip(db, { deployment, version, profile });
                if (answer.run) deciding.add(answer.run.id);
              }
            for (const id of deciding) assert.ok(!mine.has(id), `run ${id} decides, and lost its files`);
            byRecency.forEach(({ id, run }, rank) => {
              const named =
                (chosen.keepLast !== undefined && rank >= chosen.keepLast) ||
                (chosen.maxAgeDays !== undefined && run.daysAgo > chosen.maxAgeDays);
              if (!named) assert.ok(!mine.has(id), `run ${id} is within the policy, and lost its files`);
              // Named, and not the newest standing run of its version and profile: its files go.
              const newestOfKind = byRecency.find(
                (other) =>
                  !other.run.yanked && other.run.version === run.version && other.run.profile === run.profile,
              );
              if (named && newestOfKind?.id !== id) assert.ok(mine.has(id), `run ${id} kept its files`);
            });
            for (const id of ids) {
              const files = await bundleFileNames(db, id);
              assert.equal(files.length, mine.has(id) ? 0 : 1, `run ${id}'s files`);
            }
            const kept = await runsOf(db, deployment);
            assert.equal(kept.length, runs.length, 'every run row stays');
            assert.equal((await outcomesOf(db, ids)).length, runs.length, 'every outcome stays');
            for (const run of kept) assert.equal(run.filesRemovedAt !== null, mine.has(run.id));
          },
        ),
        { numRuns: 12 },
      );
    });

    test('through the API: operator only, a dry run changes nothing, a pass is audited, a file answers 410', async () => {
      const token = registry.tokens.get('acme') ?? '';
      const ids: number[] = [];
      for (const [day, version] of [
        [1, '3.0.0'],
        [2, '3.0.0'],
        [3, '3.1.0'],
        [4, '3.1.0'],
      ] as const) {
        const bundle = makeBundle({ key: vendor.privateKey, startedAt: new Date(Date.UTC(2026, 10, day)) });
        const answer = await registry.publish(bundle, 'kept', version, token);
        assert.equal(answer.status, 201, JSON.stringify(answer.json));
        ids.push((answer.json as { run: { id: number } }).run.id);
      }
      const [oldest, older, newer, newest] = ids as [number, number, number, number];
      const post = (body: unknown, as: string) =>
        registry.request('/api/v1/retention', { method: 'POST', body: JSON.stringify(body), token: as });
      assert.equal((await post({ keepLast: 1 }, token)).status, 403);
      assert.equal((await post({}, operator)).status, 400);
      assert.equal((await post({ keepLast: 0 }, operator)).status, 400);
      assert.equal((await post({ keepLast: '1' }, operator)).status, 400);

      const dry = await post({ keepLast: 1, dryRun: true }, operator);
      assert.equal(dry.status, 200, dry.text);
      // The newest run of each version decides it: 3.0.0's older, 3.1.0's newest.
      const would = (dry.json as { runs: number[] }).runs.filter((id) => ids.includes(id));
      assert.deepEqual(would, [oldest, newer]);
      assert.equal((await registry.request(`/runs/${oldest}/files/conformance.json`)).status, 200);

      const pass = await post({ keepLast: 1 }, operator);
      assert.equal(pass.status, 200, pass.text);
      const result = pass.json as { runs: number[]; bytes: number; auditId: number };
      assert.ok(result.bytes > 0);
      const gone = await registry.request(`/runs/${oldest}/files/conformance.json`);
      assert.equal(gone.status, 410, gone.text);
      assert.match(gone.text, /removed by the retention policy/);
      assert.equal((await registry.request(`/api/v1/runs/${newer}/files`)).status, 410);
      assert.equal((await registry.request(`/runs/${older}/files/conformance.json`)).status, 200);
      assert.equal((await registry.request(`/runs/${newest}/files/conformance.json`)).status, 200);
      assert.equal((await registry.request('/runs/999999/files/conformance.json')).status, 404);
      const detail = (await registry.request(`/api/v1/runs/${oldest}`)).json as {
        run: { filesRemovedAt: string | null; verdict: string };
        rules: unknown[];
      };
      assert.ok(detail.run.filesRemovedAt !== null);
      assert.ok(detail.rules.length > 0, 'the rule outcomes stay');
      assert.match((await registry.request(`/runs/${oldest}`)).text, /id="files-removed"/);
      const shipped = (await registry.request('/api/v1/can-i-ship?deployment=kept&version=3.0.0')).json as {
        ship: boolean;
      };
      assert.equal(shipped.ship, true);

      const audit = (await registry.request('/api/v1/audit?limit=1', { token: operator })).json as {
        entries: { id: number; actor: string; action: string; detail: { runs: number[]; policy: unknown } }[];
      };
      const [entry] = audit.entries;
      assert.equal(entry?.id, result.auditId);
      assert.equal(entry?.actor, 'ops');
      assert.equal(entry?.action, 'retention');
      assert.deepEqual(entry?.detail.policy, { keepLast: 1 });
      assert.ok([oldest, newer].every((id) => entry?.detail.runs.includes(id)));
      const again = await post({ keepLast: 1 }, operator);
      assert.deepEqual((again.json as { runs: number[] }).runs, [], 'a second pass finds nothing more');
    });
  });
}
