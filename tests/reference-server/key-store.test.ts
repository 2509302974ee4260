// The key store's lookup (api-keys.ts, decision 0006): a presented key is found by its SHA-256
// when the store knows it, by its HMAC when the key was read from the store file and not yet
// presented, and in every case only within its own tenant and environment, never once revoked
// or removed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ApiKey } from '../../schemas/generated/fixtures.ts';
import { KeyStore } from '../../reference-server/api-keys.ts';

/** A public test value in the reference's key format, like the fixture keys. */
const FIXTURE_KEY: ApiKey = {
  id: 'key_test_fixture',
  name: 'Fixture key',
  secret: `mbk_prod_${'F'.repeat(32)}`,
  environment: 'production',
  access: 'full_access',
};

/** A store with one created key, and a second store read from its records (a restart). */
function restartedStore(): { restarted: KeyStore; secret: string; id: string } {
  const hmacSecret = randomBytes(32);
  const first = new KeyStore(hmacSecret);
  const { key, secret } = first.create('acme', {
    name: 'made before',
    environment: 'production',
    access: 'read_only',
  });
  const restarted = new KeyStore(hmacSecret);
  restarted.load(first.records());
  return { restarted, secret, id: key.id };
}

describe('key store lookup', () => {
  test('a created key is found in its tenant and environment only', () => {
    const store = new KeyStore();
    const { key, secret } = store.create('acme', {
      name: 'k',
      environment: 'production',
      access: 'full_access',
    });
    assert.equal(store.find('acme', 'production', secret)?.id, key.id);
    assert.equal(store.find('acme', 'sandbox', secret), undefined);
    assert.equal(store.find('globex', 'production', secret), undefined);
    assert.equal(store.find('acme', 'production', `${secret}x`), undefined);
  });

  test('a key read from the store file is found by its HMAC, then again once its digest is learnt', () => {
    const { restarted, secret, id } = restartedStore();
    assert.equal(restarted.find('acme', 'production', `mbk_prod_${'x'.repeat(32)}`), undefined);
    assert.equal(restarted.find('acme', 'production', secret)?.id, id, 'first use: by the HMAC');
    assert.equal(restarted.find('acme', 'production', secret)?.id, id, 'later uses: by the digest');
    assert.equal(restarted.find('globex', 'production', secret), undefined);
  });

  test('a key stays refused once revoked, whether or not its digest was learnt', () => {
    const { restarted, secret, id } = restartedStore();
    restarted.revoke('acme', id);
    assert.equal(restarted.find('acme', 'production', secret), undefined);

    const learnt = restartedStore();
    assert.equal(learnt.restarted.find('acme', 'production', learnt.secret)?.id, learnt.id);
    learnt.restarted.revoke('acme', learnt.id);
    assert.equal(learnt.restarted.find('acme', 'production', learnt.secret), undefined);
  });

  test('a removed key is no longer found by either digest', () => {
    const { restarted, secret, id } = restartedStore();
    assert.equal(restarted.find('acme', 'production', secret)?.id, id);
    restarted.retain((record) => record.id !== id);
    assert.equal(restarted.find('acme', 'production', secret), undefined);

    const unused = restartedStore();
    unused.restarted.retain((record) => record.id !== unused.id);
    assert.equal(unused.restarted.find('acme', 'production', unused.secret), undefined);
  });

  test('a fixture key seeded again after a restart, or edited, is found by its current secret only', () => {
    const hmacSecret = randomBytes(32);
    const first = new KeyStore(hmacSecret);
    first.add('acme', FIXTURE_KEY);
    const restarted = new KeyStore(hmacSecret);
    restarted.load(first.records());
    restarted.add('acme', FIXTURE_KEY);
    assert.equal(restarted.find('acme', 'production', FIXTURE_KEY.secret)?.id, FIXTURE_KEY.id);

    const edited = { ...FIXTURE_KEY, secret: `mbk_prod_${'E'.repeat(32)}` };
    restarted.add('acme', edited);
    assert.equal(restarted.find('acme', 'production', FIXTURE_KEY.secret), undefined);
    assert.equal(restarted.find('acme', 'production', edited.secret)?.id, FIXTURE_KEY.id);
  });

  test('rotation: the old key is refused and the new one found', () => {
    const store = new KeyStore();
    const { key, secret } = store.create('acme', { name: 'k', environment: 'sandbox', access: 'read_only' });
    const rotated = store.rotate('acme', key.id);
    assert.ok(rotated && rotated !== 'revoked');
    assert.equal(store.find('acme', 'sandbox', secret), undefined);
    assert.equal(store.find('acme', 'sandbox', rotated.secret)?.id, rotated.key.id);
  });
});
