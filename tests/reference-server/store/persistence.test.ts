// The key store outlives a restart: created keys still work, revoked ones stay revoked, last-use
// times are kept — and the files hold HMACs, never a key, readable by their owner only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  ApiKeyList,
  ApiKeyMetadata,
  CreatedKey,
} from '../../../schemas/generated/api-key-management.ts';
import type { KeyStoreFile } from '../../../schemas/generated/key-store.ts';
import { DataDirError } from '../../../reference-server/store/data-dir.ts';
import { openKeyStoreFile } from '../../../reference-server/store/key-store-file.ts';
import { startKeyManagementServer, type KeyManagementServer } from '../../support/key-management-client.ts';
import { scratchDirectory } from '../../support/scratch.ts';

/** Long enough that no periodic flush happens during a test: only close() writes last uses. */
const NO_FLUSH_DURING_TEST_MS = 60 * 60_000;

async function create(km: KeyManagementServer, name: string): Promise<CreatedKey> {
  const reply = await km.admin('POST', '/tenants/acme/keys', {
    name,
    environment: 'production',
    access: 'read_only',
  });
  assert.equal(reply.status, 201, reply.body);
  return reply.json as CreatedKey;
}

function storeFile(dataDir: string): KeyStoreFile {
  return JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')) as KeyStoreFile;
}

describe('key store across a restart', () => {
  const dataDir = scratchDirectory('km-persist-');
  let km: KeyManagementServer;
  before(async () => {
    km = await startKeyManagementServer({ dataDir, usageFlushMs: NO_FLUSH_DURING_TEST_MS });
  });
  after(async () => {
    await km.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('keeps created, revoked and fixture keys, and last-use times, through a restart', async () => {
    const kept = await create(km, 'kept');
    const revoked = await create(km, 'revoked');
    assert.equal((await km.admin('POST', `/tenants/acme/keys/${revoked.key.id}/revoke`)).status, 200);
    const fixtureRevoked = await km.admin('POST', '/tenants/acme/keys/key_acme_prod_read/revoke');
    assert.equal(fixtureRevoked.status, 200);
    assert.equal((await km.customers('acme', 'production', kept.secret)).status, 200);

    // The use is in memory only: the file is not written per request.
    const onDisk = storeFile(dataDir).keys.find((record) => record.id === kept.key.id);
    assert.equal(onDisk?.last_used_at, null);

    await km.restart();

    assert.equal((await km.customers('acme', 'production', kept.secret)).status, 200);
    const rejected = await km.customers('acme', 'production', revoked.secret);
    assert.equal((rejected.json as { error: { code: string } }).error.code, 'invalid_api_key');
    const list = (await km.admin('GET', '/tenants/acme/keys')).json as ApiKeyList;
    const byId = new Map(list.data.map((key) => [key.id, key]));
    assert.equal(byId.get(kept.key.id)?.revoked, false);
    assert.notEqual(byId.get(kept.key.id)?.last_used_at, null, 'the last use was written at close');
    assert.equal(byId.get(revoked.key.id)?.revoked, true);
    // The fixtures are the seed, not the truth: a fixture key revoked here stays revoked.
    assert.equal(byId.get('key_acme_prod_read')?.revoked, true);
    assert.equal(byId.get('key_acme_prod_full')?.revoked, false);
  });

  test('writes HMACs and metadata, never a key, in files only their owner can read', async () => {
    const created = await create(km, 'file check');
    const text = readFileSync(join(dataDir, 'keys.json'), 'utf8');
    assert.ok(!text.includes(created.secret), 'keys.json holds a key');
    assert.ok(!text.includes(created.secret.slice(9, -4)), 'keys.json holds the random part of a key');
    assert.ok(!text.includes('EHUEYGExFL9eKl61mpA1K6lMRQu5UCAA'), 'keys.json holds a fixture key');
    assert.ok(storeFile(dataDir).keys.some((record) => record.id === created.key.id));
    for (const file of ['keys.json', 'hmac-secret']) {
      assert.equal(statSync(join(dataDir, file)).mode & 0o777, 0o600, file);
    }
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
  });

  test('keeps last-use times when the periodic flush runs', async () => {
    const quick = scratchDirectory('km-flush-');
    const flushing = await startKeyManagementServer({ dataDir: quick, usageFlushMs: 50 });
    try {
      const created = await create(flushing, 'flushed');
      assert.equal((await flushing.customers('acme', 'production', created.secret)).status, 200);
      // Bounded wait: up to 40 × 50 ms for the timer to write the file.
      let record: KeyStoreFile['keys'][number] | undefined;
      for (let attempt = 0; attempt < 40 && !record?.last_used_at; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        record = storeFile(quick).keys.find((candidate) => candidate.id === created.key.id);
      }
      assert.ok(record?.last_used_at, 'the last use was not written by the periodic flush');
      const listed = (await flushing.admin('GET', `/tenants/acme/keys/${created.key.id}`))
        .json as ApiKeyMetadata;
      assert.equal(record.last_used_at, listed.last_used_at);
    } finally {
      await flushing.close();
      rmSync(quick, { recursive: true, force: true });
    }
  });
});

describe('a data directory that cannot be used', () => {
  test('a key store file that is not JSON or not a key store is refused with what to do', () => {
    const dir = scratchDirectory('km-bad-');
    try {
      openKeyStoreFile(dir).startSaving();
      writeFileSync(join(dir, 'keys.json'), '{"format":');
      assert.throws(
        () => openKeyStoreFile(dir),
        (error: Error) => {
          assert.ok(error instanceof DataDirError);
          assert.match(
            error.message,
            /keys\.json is not valid JSON.*delete it to start again from the fixtures/s,
          );
          return true;
        },
      );
      writeFileSync(
        join(dir, 'keys.json'),
        JSON.stringify({ format: 'reference-key-store/1', keys: [{ id: 'x' }] }),
      );
      assert.throws(() => openKeyStoreFile(dir), /is not a key store:\n {2}\$\.keys\[0\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('stored keys without their HMAC secret are refused rather than silently invalidated', () => {
    const dir = scratchDirectory('km-nosecret-');
    try {
      openKeyStoreFile(dir).startSaving();
      rmSync(join(dir, 'hmac-secret'));
      assert.throws(() => openKeyStoreFile(dir), /hmac-secret does not: the stored keys cannot be checked/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
