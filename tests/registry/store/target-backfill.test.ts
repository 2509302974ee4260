// Migration 4 on a database that already holds runs, on the embedded database and on a PostgreSQL
// server: each deployment is bound to the base URL of its newest run by start time (not the last
// uploaded), a deployment with no run is left unbound, and the runs published after the upgrade
// are judged against that binding — the same base URL is accepted (its other tenant, which no run
// before the upgrade recorded, is learnt without a move), another one refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate, MIGRATIONS } from '../../../registry/database/migrations.ts';
import { storeRun, type RunFacts } from '../../../registry/store/runs.ts';
import { TargetChangedError, targetOf } from '../../../registry/store/targets.ts';
import { BACKENDS, openBackend, stopBackends, type OpenedBackend } from '../support/backends.ts';
import { runFacts, sha256 } from '../support/run-facts.ts';

/** A run as a registry before migration 4 stored it (no other tenant column). */
async function oldRun(
  opened: OpenedBackend,
  deployment: string,
  baseUrl: string,
  startedAt: string,
): Promise<void> {
  const bundle = sha256(`${deployment} ${baseUrl} ${startedAt}`);
  await opened.db.query('INSERT INTO bundles (sha256, size_bytes) VALUES ($1, 0)', [bundle]);
  await opened.db.query(
    `INSERT INTO runs (bundle_sha256, deployment, version, target_name, base_url, profile, verdict,
       protocols_checked, protocols_offered, rules_selected, rules_in_catalog, partial, scope, options,
       kit_version, statement_sha256, report_sha256, signer, publisher, started_at)
     VALUES ($1, $2, '1.0.0', $2, $3, 'strict', 'CONFORMANT', '{HTTP/1.1}', '{HTTP/1.1}', 1, 1, '{}', '{}', '{}',
       '0.1.0', $4, $4, 'sha256:x', 'acme', $5)`,
    [bundle, deployment, baseUrl, sha256('statement'), startedAt],
  );
}

function newRun(deployment: string, baseUrl: string, otherTenant: string | null): RunFacts {
  return runFacts(deployment, { version: '2.0.0', baseUrl, otherTenant });
}

const bundleOf = (seed: string) => ({ sha256: sha256(seed), files: [] });

for (const backend of BACKENDS) {
  describe(`migration 4's target binding on a database with runs, ${backend} database`, () => {
    let opened: OpenedBackend;
    before(async () => {
      opened = await openBackend(backend, false);
      await migrate(
        opened.db,
        MIGRATIONS.filter((migration) => migration.version <= 3),
      );
      for (const name of ['moved', 'empty'])
        await opened.db.query('INSERT INTO deployments (name, publisher) VALUES ($1, $2)', [name, 'acme']);
      // Uploaded last, started first: the newest by start time is v2, uploaded before it.
      await oldRun(opened, 'moved', 'https://api.acme.example/v2', '2026-11-20T12:00:00Z');
      await oldRun(opened, 'moved', 'https://api.acme.example/v1', '2026-11-20T09:00:00Z');
      await migrate(opened.db);
    });
    after(async () => {
      await opened.close();
      if (backend === 'server') await stopBackends();
    });

    test('each deployment is bound to its newest run’s base URL by start time; one with no run is unbound', async () => {
      const moved = await targetOf(opened.db, 'moved');
      assert.deepEqual(moved.target, { baseUrl: 'https://api.acme.example/v2', otherTenant: null });
      assert.deepEqual(moved.moves, []);
      assert.equal((await targetOf(opened.db, 'empty')).target, undefined);
    });

    test('after the upgrade: the bound base URL is accepted, learning its other tenant; another is refused', async () => {
      const same = await storeRun(
        opened.db,
        newRun('moved', 'https://api.acme.example/v2', 'globex.acme.example:443'),
        bundleOf('same'),
        [],
      );
      assert.equal(same.stored, 'new');
      const learnt = await targetOf(opened.db, 'moved');
      assert.deepEqual(learnt.target, {
        baseUrl: 'https://api.acme.example/v2',
        otherTenant: 'globex.acme.example:443',
      });
      assert.deepEqual(learnt.moves, [], 'learning what was never recorded is not a move');
      await assert.rejects(
        storeRun(
          opened.db,
          newRun('moved', 'https://api.acme.example/v1', 'globex.acme.example:443'),
          bundleOf('old'),
          [],
        ),
        TargetChangedError,
      );
      // Once learnt, another other tenant is a change like any other.
      await assert.rejects(
        storeRun(
          opened.db,
          newRun('moved', 'https://api.acme.example/v2', 'initech.acme.example:443'),
          bundleOf('other'),
          [],
        ),
        TargetChangedError,
      );
      const first = await storeRun(
        opened.db,
        newRun('empty', 'https://empty.example/v1', null),
        bundleOf('empty'),
        [],
      );
      assert.equal(first.stored, 'new');
      assert.deepEqual((await targetOf(opened.db, 'empty')).target, {
        baseUrl: 'https://empty.example/v1',
        otherTenant: null,
      });
    });
  });
}
