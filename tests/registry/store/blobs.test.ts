// A bundle's large files outside the database (registry/store/blobs.ts), on the embedded database
// and on a PostgreSQL server (`registry serve` uses the store on the embedded one; the SQL it needs
// is the same on both). Through the API: a large file is a blob, not a row, and is served byte for
// byte; a publish refused after its blob was written leaves none; retention deletes a blob no row
// references and keeps one another run shares; a yank keeps it; a crash's leftovers go at the next
// start; a blob gone from disk is a 500 with the cause in the log. In the store: a row written
// before the blob store is still served; no name from anywhere makes a path outside the store; a
// sweep never runs while a publish is between its blob and its commit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { migrate, MIGRATIONS } from '../../../registry/database/migrations.ts';
import { addPublisher } from '../../../registry/publish/publishers.ts';
import { PublishOrSweep } from '../../../registry/store/blob-lock.ts';
import { BlobStore } from '../../../registry/store/blobs.ts';
import { bundleFile } from '../../../registry/store/bundle-files.ts';
import { storeRun } from '../../../registry/store/runs.ts';
import { BACKENDS, openBackend, stopBackends } from '../support/backends.ts';
import { keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { runFacts } from '../support/run-facts.ts';
import { scratchDirectory } from '../../support/scratch.ts';

after(async () => {
  removeBundles();
  await stopBackends();
});
const vendor = keyPair();
const stranger = keyPair();
const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');
const KIB = 1024;
/** Above the store's default threshold (256 KiB): each HAR below is a blob. Same padding, same HAR. */
const bundleOf = (padding: number, day: number): string =>
  makeBundle({
    key: vendor.privateKey,
    harPadding: padding,
    startedAt: new Date(Date.UTC(2026, 10, day)),
  });
const harOf = (bundle: string): Buffer => readFileSync(join(bundle, 'exchanges.har'));

for (const backend of BACKENDS) {
  describe(`blobs through the API on the ${backend} database`, () => {
    let registry: TestRegistry;
    let blobs: string;
    let operator: string;
    const blobPath = (hash: string): string => join(blobs, hash.slice(0, 2), hash);
    const runs: Record<'a' | 'b' | 'd', { id: number; har: Buffer }> = {} as never;
    before(async () => {
      blobs = join(scratchDirectory('registry-blobs-'), 'blobs');
      registry = await startTestRegistry(
        backend,
        { acme: [vendor.publicPem], other: [stranger.publicPem] },
        { blobDirectory: blobs },
      );
      operator = addPublisher(registry.publishersFile, 'ops', [], { operator: true }).token;
      // a and b each have a HAR of their own; d shares b's (same padding, same bytes).
      for (const [name, padding, day] of [
        ['a', 300 * KIB, 1],
        ['b', 400 * KIB, 2],
        ['d', 400 * KIB, 3],
      ] as const) {
        const bundle = bundleOf(padding, day);
        const answer = await registry.publish(bundle, 'blobs', '1.0.0', registry.tokens.get('acme') ?? '');
        assert.equal(answer.status, 201, JSON.stringify(answer.json));
        runs[name] = { id: (answer.json as { run: { id: number } }).run.id, har: harOf(bundle) };
      }
    });
    after(() => registry.close());

    test('a large file is a blob outside the database, its row a reference, served byte for byte', async () => {
      const { id, har } = runs.a;
      const rows = await registry.backend.db.query<{ name: string; in_blob: boolean; empty: boolean }>(
        `SELECT f.name, f.in_blob, f.content IS NULL AS empty FROM bundle_files f
         JOIN runs r ON r.bundle_sha256 = f.bundle_sha256 WHERE r.id = $1 ORDER BY f.name`,
        [id],
      );
      assert.deepEqual(
        rows.filter((row) => row.in_blob).map((row) => [row.name, row.empty]),
        [['exchanges.har', true]],
      );
      assert.ok(rows.length > 3, 'the small files stay in their rows');
      assert.deepEqual(readFileSync(blobPath(sha256(har))), har);
      const served = await registry.request(`/runs/${id}/files/exchanges.har`);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('content-length'), String(har.length));
      assert.equal(sha256(served.text), sha256(har));
      assert.equal(served.headers.get('content-security-policy'), 'sandbox');
      const small = await registry.request(`/runs/${id}/files/SHA256SUMS`);
      assert.equal(small.status, 200);
      assert.match(small.text, new RegExp(sha256(har)));
    });

    test('a publish refused after its blob was written leaves no blob behind', async () => {
      const bundle = bundleOf(500 * KIB, 4);
      const signed = makeBundle({
        key: stranger.privateKey,
        harPadding: 500 * KIB,
        startedAt: new Date(Date.UTC(2026, 10, 4)),
      });
      assert.deepEqual(harOf(signed), harOf(bundle));
      const answer = await registry.publish(signed, 'blobs', '1.0.1', registry.tokens.get('other') ?? '');
      assert.equal(answer.status, 403, JSON.stringify(answer.json));
      assert.equal(existsSync(blobPath(sha256(harOf(bundle)))), false);
    });

    test('retention deletes a blob no row references, and keeps the one a kept run shares', async () => {
      const answer = await registry.request('/api/v1/retention', {
        method: 'POST',
        body: JSON.stringify({ keepLast: 1 }),
        token: operator,
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual((answer.json as { runs: number[] }).runs, [runs.a.id, runs.b.id]);
      assert.equal(existsSync(blobPath(sha256(runs.a.har))), false);
      assert.equal(existsSync(blobPath(sha256(runs.b.har))), true);
      assert.equal((await registry.request(`/runs/${runs.a.id}/files/exchanges.har`)).status, 410);
      assert.equal((await registry.request(`/runs/${runs.b.id}/files/exchanges.har`)).status, 410);
      const kept = await registry.request(`/runs/${runs.d.id}/files/exchanges.har`);
      assert.equal(sha256(kept.text), sha256(runs.d.har));
    });

    test('a yanked run keeps its blob', async () => {
      const answer = await registry.request(`/api/v1/runs/${runs.d.id}/yank`, {
        method: 'POST',
        body: JSON.stringify({ reason: 'forged' }),
        token: operator,
      });
      assert.equal(answer.status, 200, answer.text);
      const kept = await registry.request(`/runs/${runs.d.id}/files/exchanges.har`);
      assert.equal(sha256(kept.text), sha256(runs.d.har));
    });

    test('a blob no row references and a temporary file, left by a crash, are removed at the next start', async () => {
      const orphan = Buffer.from('a blob whose transaction never committed');
      mkdirSync(join(blobs, sha256(orphan).slice(0, 2)), { recursive: true });
      writeFileSync(blobPath(sha256(orphan)), orphan);
      const half = join(blobs, sha256(orphan).slice(0, 2), '.tmp-0123456789abcdef');
      writeFileSync(half, 'half written');
      await registry.restart();
      assert.equal(existsSync(blobPath(sha256(orphan))), false);
      assert.equal(existsSync(half), false);
      assert.equal(existsSync(blobPath(sha256(runs.d.har))), true);
      assert.ok(
        registry.logs.some((line) => /removed 1 blob no run references and 1 temporary file/.test(line)),
      );
    });

    test('a blob gone from disk is a 500 whose cause is in the log, not in the answer', async () => {
      rmSync(blobPath(sha256(runs.d.har)));
      const answer = await registry.request(`/runs/${runs.d.id}/files/exchanges.har`);
      assert.equal(answer.status, 500);
      assert.doesNotMatch(answer.text, new RegExp(`${blobs}|${sha256(runs.d.har)}`));
      assert.ok(registry.logs.some((line) => line.includes(`BlobDamaged: the blob ${sha256(runs.d.har)}`)));
    });
  });

  describe(`blobs in the store on the ${backend} database`, () => {
    test('a database written before the blob store still serves the files stored in their rows', async () => {
      const opened = await openBackend(backend, false);
      try {
        await migrate(
          opened.db,
          MIGRATIONS.filter((migration) => migration.version < 9),
        );
        const content = Buffer.from('a report stored by the previous registry');
        // The previous code's insert: the file's bytes in its row (storeRun's for a small file).
        const old = await storeRun(
          opened.db,
          runFacts('before-blobs'),
          {
            sha256: sha256('manifest'),
            files: [{ name: 'conformance.json', sha256: sha256(content), content }],
          },
          [],
        );
        assert.deepEqual(await migrate(opened.db), [9]);
        assert.deepEqual(await bundleFile(opened.db, old.run.id, 'conformance.json'), { content });
      } finally {
        await opened.close();
      }
    });

    test('a row never names a blob outside the store: the database refuses a blob row not named by a SHA-256', async () => {
      const opened = await openBackend(backend);
      try {
        const content = Buffer.from('x');
        await storeRun(
          opened.db,
          runFacts('names'),
          { sha256: sha256('names'), files: [{ name: 'a.json', sha256: sha256(content), content }] },
          [],
        );
        for (const name of ['../../etc/passwd', sha256('x').toUpperCase(), `${sha256('x')}/..`])
          await assert.rejects(
            opened.db.query(
              `INSERT INTO bundle_files (bundle_sha256, name, sha256, content, in_blob, size_bytes) VALUES ($1, 'b.json', $2, NULL, true, 1)`,
              [sha256('names'), name],
            ),
            /bundle_files_in_one_place/,
          );
      } finally {
        await opened.close();
      }
    });
  });
}

describe('the blob store', () => {
  test('no name makes a path outside the store: a SHA-256 maps inside it, anything else is refused', () => {
    const store = new BlobStore(join(scratchDirectory('registry-blobs-'), 'blobs'));
    const inside = (path: string): boolean => {
      const rest = relative(store.directory, path);
      return rest !== '' && !rest.startsWith('..') && rest.split(sep).length === 2;
    };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.stringMatching(/^[0-9a-f]{64}$/),
          fc.constantFrom(
            '../'.repeat(30),
            `${'0'.repeat(62)}/..`,
            `${'a'.repeat(64)}\n`,
            `/${'a'.repeat(63)}`,
          ),
        ),
        (name) => {
          let path: string | undefined;
          try {
            path = store.pathOf(name);
          } catch {
            return !/^[0-9a-f]{64}$/.test(name);
          }
          return /^[0-9a-f]{64}$/.test(name) && inside(path) && path.endsWith(`${sep}${name}`);
        },
      ),
    );
  });

  test('a blob from another file system is copied (no link there), whole', async (t) => {
    if (!existsSync('/dev/shm')) return t.skip('no /dev/shm on this machine');
    const store = new BlobStore(join(scratchDirectory('registry-blobs-'), 'blobs'));
    const elsewhere = mkdtempSync('/dev/shm/registry-blob-source-');
    try {
      const bytes = Buffer.alloc(300 * KIB, 7);
      writeFileSync(join(elsewhere, 'exchanges.har'), bytes);
      await store.put(sha256(bytes), join(elsewhere, 'exchanges.har'));
      assert.deepEqual(readFileSync(store.pathOf(sha256(bytes))), bytes);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test('a sweep waits for the publishes in flight, and the publishes after it wait for the sweep', async () => {
    const lock = new PublishOrSweep();
    const order: string[] = [];
    let endFirst: () => void = () => undefined;
    const first = lock.publish(async () => {
      order.push('publish 1 in');
      await new Promise<void>((resolve) => (endFirst = resolve));
      order.push('publish 1 out');
    });
    const sweep = lock.sweep(() => Promise.resolve(order.push('sweep')));
    const second = lock.publish(() => Promise.resolve(order.push('publish 2')));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['publish 1 in']);
    endFirst();
    await Promise.all([first, sweep, second]);
    assert.deepEqual(order, ['publish 1 in', 'publish 1 out', 'sweep', 'publish 2']);
  });
});
