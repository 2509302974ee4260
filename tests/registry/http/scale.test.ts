// The registry at scale, on the embedded database and on a PostgreSQL server. Every list pages: the
// deployments (`/api/v1/deployments` and `/`) and a deployment's versions
// (`/api/v1/deployments/NAME` and its page) come a bounded page at a time, with a next link (the
// API's `next` and Link header, the pages' "Next page") that a client follows to the end, each
// item once, even while runs are published between two pages; a bad cursor or limit is a 400
// naming it. Uploads are bounded: past the uploads in flight and those waiting, a publish is refused
// 503 with Retry-After before its body is read, and the slot is free again once an upload ends.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { registryClient } from '../../../registry/client.ts';
import { PAGE_LIMIT, cursorOf } from '../../../registry/http/paging.ts';
import { storeRun, type RunFacts, type StoredRun } from '../../../registry/store/runs.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { keyPair } from '../support/bundles.ts';
import { seedRuns } from '../support/seed.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';

const vendor = keyPair();

interface DeploymentsList {
  certified: { deployment: string }[];
  uncertified: string[];
  next: string | null;
}
interface History {
  versions: string[];
  runs: StoredRun[];
  next: string | null;
}

/** A run of `like`'s deployment and target, stored as a publish would store it. */
async function storeLike(registry: TestRegistry, like: StoredRun, version: string, seed: string) {
  const facts = { ...like } as Partial<StoredRun> & RunFacts;
  delete facts.id;
  delete facts.bundleSha256;
  delete facts.publishedAt;
  const content = Buffer.from(seed);
  const sha = createHash('sha256').update(seed).digest('hex');
  return storeRun(
    registry.backend.db,
    { ...facts, version, startedAt: '2027-01-01T00:00:00.000Z' },
    { sha256: sha, files: [{ name: 'conformance.json', sha256: sha, content }] },
    [],
  );
}

/** The href of the page's link with this id (unescaped), or undefined. */
function linkOf(html: string, id: string): string | undefined {
  return new RegExp(`<a id="${id}"[^>]* href="([^"]+)"`).exec(html)?.[1]?.replace(/&amp;/g, '&');
}

for (const backend of BACKENDS) {
  describe(`the registry at scale (${backend} database)`, () => {
    let registry: TestRegistry;
    before(async () => {
      // One upload at a time and none waiting: the bound is reached with one held upload.
      registry = await startTestRegistry(
        backend,
        { acme: [vendor.publicPem] },
        { maxUploads: 1, maxWaitingUploads: 0 },
      );
      // 130 deployments of one run each, every third NOT CONFORMANT; and one of 120 versions × 2 runs.
      await seedRuns(registry.backend.db, { prefix: 'p', deployments: 130, runs: 130, failEvery: 3 });
      await seedRuns(registry.backend.db, { prefix: 'wide', deployments: 1, runs: 240, runsPerVersion: 2 });
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('the deployments page by name, to the end, each once, while deployments are added', async () => {
      const seen: string[] = [];
      let path: string | null = '/api/v1/deployments?limit=50';
      const sizes: number[] = [];
      for (let page = 0; path !== null && page < 10; page++) {
        const answer = await registry.request(path);
        assert.equal(answer.status, 200, answer.text);
        const list = answer.json as DeploymentsList;
        const names = [...list.certified.map((run) => run.deployment), ...list.uncertified].sort();
        sizes.push(names.length);
        // Pages follow each other by name.
        assert.ok(
          seen.every((name) => name < (names[0] ?? '')),
          `page ${page} goes back`,
        );
        seen.push(...names);
        assert.equal(answer.headers.get('link') ?? null, list.next && `<${list.next}>; rel="next"`);
        // Between two pages, deployments are published before the cursor (not listed: the listing
        // is past them) and after it (listed at its place).
        if (page === 0) {
          await seedRuns(registry.backend.db, { prefix: 'a-new-', deployments: 2, runs: 2 });
          await seedRuns(registry.backend.db, { prefix: 'zz-', deployments: 1, runs: 1 });
        }
        path = list.next;
      }
      assert.equal(path, null, 'the last page has no next link');
      assert.deepEqual(sizes, [50, 50, 32]);
      const expected = ['wide0', 'zz-0', ...Array.from({ length: 130 }, (_, index) => `p${index}`)].sort();
      assert.deepEqual(seen, expected, 'each deployment once, none skipped');
      const certifiedOf = (name: string) => Number(name.slice(1)) % 3 !== 2;
      const first = (await registry.request('/api/v1/deployments?limit=200')).json as DeploymentsList;
      assert.deepEqual(
        first.uncertified,
        seen.filter((name) => name.startsWith('p') && !certifiedOf(name)),
      );
    });

    test('without a limit a page holds the default; the bound is refused above it', async () => {
      const answer = await registry.request('/api/v1/deployments');
      const list = answer.json as DeploymentsList;
      assert.equal(list.certified.length + list.uncertified.length, PAGE_LIMIT.default);
      assert.ok(list.next?.startsWith('/api/v1/deployments?cursor='), list.next ?? 'no next');
      assert.equal((await registry.request(`/api/v1/deployments?limit=${PAGE_LIMIT.max}`)).status, 200);
    });

    test('a bad cursor or limit is a 400 naming it', async () => {
      const refusals: [string, string][] = [
        [`/api/v1/deployments?limit=${PAGE_LIMIT.max + 1}`, 'bad_limit'],
        ['/api/v1/deployments?limit=0', 'bad_limit'],
        ['/api/v1/deployments?limit=ten', 'bad_limit'],
        ['/api/v1/deployments?cursor=not-a-cursor', 'bad_cursor'],
        [`/api/v1/deployments?cursor=${cursorOf('versions', 3)}`, 'bad_cursor'],
        [`/api/v1/deployments/wide0?cursor=${cursorOf('deployments', 'p1')}`, 'bad_cursor'],
        ['/api/v1/deployments/wide0?cursor=%00', 'bad_cursor'],
        ['/?limit=-1', 'bad_limit'],
        ['/deployments/wide0?cursor=WyJ2ZXJzaW9ucyIsLTFd', 'bad_cursor'],
      ];
      for (const [path, code] of refusals) {
        const answer = await registry.request(path);
        assert.equal(answer.status, 400, path);
        const error = (answer.json as { error: { code: string; message: string } }).error;
        assert.equal(error.code, code, path);
        assert.match(error.message, code === 'bad_limit' ? /^limit / : /^cursor /, path);
      }
    });

    test('a deployment’s versions page in order of first publication, each once, while runs are published', async () => {
      const versions: string[] = [];
      let path: string | null = '/api/v1/deployments/wide0?limit=50';
      let pages = 0;
      for (; path !== null && pages < 10; pages++) {
        const history = (await registry.request(path)).json as History;
        versions.push(...history.versions);
        // Every run of each version of the page, and none of another.
        assert.deepEqual(
          [...new Set(history.runs.map((run) => run.version))].sort(),
          [...history.versions].sort(),
        );
        const extra =
          (history.versions.includes('1.0.99') ? 1 : 0) - (history.versions.includes('2.0.0') ? 1 : 0);
        assert.equal(history.runs.length, 2 * history.versions.length + extra);
        if (pages === 0) {
          const like = history.runs[0];
          assert.ok(like);
          // A later run of a listed version, one of a version not yet listed, and a new version.
          await storeLike(registry, like, '1.0.0', 'again 1.0.0');
          await storeLike(registry, like, '1.0.99', 'again 1.0.99');
          await storeLike(registry, like, '2.0.0', 'new 2.0.0');
        }
        path = history.next;
      }
      assert.equal(pages, 3);
      assert.deepEqual(versions, [...Array.from({ length: 120 }, (_, index) => `1.0.${index}`), '2.0.0']);
    });

    test('the pages link to the next page, script-free, to the end', async () => {
      const names: string[] = [];
      let path: string | undefined = '/?limit=60';
      let pages = 0;
      for (; path !== undefined && pages < 10; pages++) {
        const answer = await registry.request(path);
        assert.equal(answer.status, 200, path);
        assert.doesNotMatch(answer.text, /<script/i);
        for (const [, name] of answer.text.matchAll(/<a href="\/deployments\/([a-z0-9-]+)"/g))
          if (name !== undefined && !names.includes(name)) names.push(name);
        if (pages > 0) assert.equal(linkOf(answer.text, 'first-page'), '/');
        path = linkOf(answer.text, 'next-page');
      }
      assert.equal(pages, 3);
      assert.equal(names.length, 134);
      const history = await registry.request('/deployments/wide0?limit=100');
      const next = linkOf(history.text, 'next-page');
      assert.ok(next?.startsWith('/deployments/wide0?cursor='), next);
      assert.equal((history.text.match(/<th>1\.0\.\d+<\/th>/g) ?? []).length, 100);
      const second = await registry.request(next ?? '');
      assert.match(second.text, /<th>1\.0\.100<\/th>/);
      assert.match(second.text, /<th>2\.0\.0<\/th>/);
      assert.equal(linkOf(second.text, 'next-page'), undefined);
      assert.equal(linkOf(second.text, 'first-page'), '/deployments/wide0');
    });
    test('past the uploads in flight, a publish is refused 503 with Retry-After, until the slot is free', async () => {
      const token = registry.tokens.get('acme') ?? '';
      const { port } = registry.registry;
      // An upload that holds the one slot: its headers and the start of its body, the rest later.
      // With no waiting line, it is refused when it arrives while a probe has the slot (a probe on
      // a warm connection arrives before an upload's new handshake): it is then sent again, and no
      // probe is sent until it has reached the registry and a pause, longer each time, has passed.
      let held: ClientRequest | undefined;
      let heldAnswer: Promise<number> = Promise.resolve(0);
      let heldRefused = false;
      let sent: Promise<void> = Promise.resolve();
      const hold = (): void => {
        heldRefused = false;
        let written: () => void = () => {};
        sent = new Promise<void>((resolve) => (written = resolve));
        heldAnswer = new Promise<number>((resolve, reject) => {
          const request = httpsRequest(
            {
              host: '127.0.0.1',
              servername: 'localhost',
              port,
              path: '/api/v1/runs',
              method: 'POST',
              ca: readFileSync(registry.caPath, 'utf8'),
              headers: {
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
                'content-length': '64',
              },
            },
            (response) => {
              response.resume();
              if (response.statusCode === 503) {
                heldRefused = true;
                request.destroy();
              }
              resolve(response.statusCode ?? 0);
            },
          );
          request.on('error', (error) => (heldRefused ? resolve(503) : reject(error)));
          request.write('{"deployment": ', () => written());
          held = request;
        });
      };
      hold();
      await sent;
      const probe = () => registry.request('/api/v1/runs', { method: 'POST', body: '{}', token });
      // Until the held upload has its slot, a probe takes the free slot (400: not an upload).
      let refused;
      let held503 = 0;
      for (let attempt = 0; attempt < 200 && refused === undefined; attempt++) {
        if (heldRefused) {
          hold();
          await sent;
          await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * ++held503)));
        }
        const answer = await probe();
        if (answer.status === 503) refused = answer;
        else assert.equal(answer.status, 400, answer.text);
      }
      assert.ok(refused, 'no publish was refused while the one slot was held');
      assert.equal(refused.headers.get('retry-after'), '2');
      const error = (refused.json as { error: { code: string; message: string } }).error;
      assert.equal(error.code, 'too_many_uploads');
      assert.match(error.message, /--max-uploads/);
      // registry publish's client waits as Retry-After says and sends again: once the slot is
      // free, its publish is read (400 here: not an upload), never left at the 503.
      const client = registryClient(registry.registry.url, { caFile: registry.caPath, token });
      const refusedBefore = registry.logs.filter((line) => / 503 /.test(line)).length;
      const retried = client.post('/api/v1/runs', '{}');
      for (let wait = 0; wait < 300; wait++) {
        if (registry.logs.filter((line) => / 503 /.test(line)).length > refusedBefore) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      held?.end(' '.repeat(64 - '{"deployment": '.length));
      assert.equal((await retried).status, 400, 'the client sent its publish again once the slot was free');
      await client.close();
      assert.equal(await heldAnswer, 400, 'the held upload is answered once its body is whole');
      assert.equal((await probe()).status, 400, 'the slot is free again');
    });
  });
}
