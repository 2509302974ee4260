// A large bundle (its HAR 12 MiB larger) published by the kit's own client, which sends it a piece
// at a time: stored, verified, served back byte for byte, and its upload directory removed — on the
// embedded database and on a PostgreSQL server. An upload that ends early (cut off, or past the
// bound) leaves nothing in the uploads directory either.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { registryClient } from '../../../registry/client.ts';
import { uploadPieces } from '../../../registry/publish/upload.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry } from '../support/registry.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const vendor = keyPair();
// Far more than a piece (64 KiB) and than the 8 MiB bound of the second test: what is proved is
// the streaming, not the size, and the file's CPU grows with the size (56 s for both databases at 40 MiB).
const PADDING = 12 * 1024 * 1024;
const large = makeBundle({ key: vendor.privateKey, harPadding: PADDING });
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

after(async () => {
  removeBundles();
  await stopBackends();
});

/** Waits (bounded) until the directory is empty: a refused upload's clean-up follows its answer. */
async function emptied(directory: string): Promise<string[]> {
  for (let attempt = 0; attempt < 100 && readdirSync(directory).length > 0; attempt++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return readdirSync(directory);
}

for (const backend of BACKENDS) {
  describe(`a large upload, ${backend} database`, () => {
    test('is stored and verified from disk, served back whole, and its upload directory removed', async () => {
      const uploads = scratchDirectory('registry-uploads-');
      const registry = await startTestRegistry(
        backend,
        { acme: [vendor.publicPem] },
        { uploadsDirectory: uploads, maxBundleBytes: 64 * 1024 * 1024 },
      );
      const client = registryClient(registry.registry.url, {
        caFile: registry.caPath,
        token: registry.tokens.get('acme') ?? '',
      });
      try {
        const answer = await client.post('/api/v1/runs', () => uploadPieces(large, 'big', '1.0.0'));
        assert.equal(answer.status, 201, JSON.stringify(answer.json));
        const run = (answer.json as { run: { id: number; verdict: string } }).run;
        assert.equal(run.verdict, 'CONFORMANT');
        const har = readFileSync(join(large, 'exchanges.har'));
        assert.ok(har.length > PADDING);
        const served = await registry.request(`/runs/${run.id}/files/exchanges.har`);
        assert.equal(served.status, 200);
        assert.equal(sha256(Buffer.from(served.text)), sha256(har));
        assert.deepEqual(await emptied(uploads), []);
      } finally {
        await client.close();
        await registry.close();
      }
    });

    test('cut off mid-body, or past the bound, leaves nothing behind', async () => {
      const uploads = scratchDirectory('registry-uploads-');
      const registry = await startTestRegistry(
        backend,
        { acme: [vendor.publicPem] },
        { uploadsDirectory: uploads, maxBundleBytes: 8 * 1024 * 1024 },
      );
      const client = registryClient(registry.registry.url, {
        caFile: registry.caPath,
        token: registry.tokens.get('acme') ?? '',
      });
      try {
        const tooLarge = await client.post('/api/v1/runs', () => uploadPieces(large, 'big', '1.0.0'));
        assert.equal(tooLarge.status, 413, JSON.stringify(tooLarge.json));
        assert.deepEqual(await emptied(uploads), []);
        // Half a body, then the connection closed: the registry wrote part of a file, and removes it.
        const pieces = [...uploadPieces(makeBundle({ key: vendor.privateKey }), 'cut', '1.0.0')];
        const body = Buffer.concat(pieces);
        const request = httpsRequest(`${registry.registry.url}/api/v1/runs`, {
          method: 'POST',
          ca: readFileSync(registry.caPath, 'utf8'),
          headers: {
            authorization: `Bearer ${registry.tokens.get('acme') ?? ''}`,
            'content-type': 'application/json',
            'content-length': body.length,
          },
        });
        request.on('error', () => undefined);
        request.write(body.subarray(0, body.length >> 1));
        // The upload's directory exists while its body arrives…
        let during: string[] = [];
        for (let attempt = 0; attempt < 100 && during.length === 0; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          during = readdirSync(uploads);
        }
        assert.equal(during.length, 1, 'the upload is written to its directory as it arrives');
        assert.ok(readdirSync(join(uploads, during[0] ?? '')).length > 0, 'a file of it is on disk');
        request.destroy();
        // …and is gone once the client has left.
        assert.deepEqual(await emptied(uploads), []);
        const runs = await registry.backend.db.query<{ count: number }>(
          'SELECT count(*)::int AS count FROM runs',
        );
        assert.equal(runs[0]?.count, 0);
      } finally {
        await client.close();
        await registry.close();
      }
    });
  });
}
