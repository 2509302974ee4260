// The key store's lookup (api-keys.ts, decision 0006): a presented key is found by its SHA-256
// when the store knows it, by its HMAC when the key was read from the store file and not yet
// presented, and in every case only within its own tenant and environment, never once revoked
// or removed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { ApiKey } from '../../../schemas/generated/fixtures.ts';
import { KeyStore } from '../../../reference-server/store/api-keys.ts';

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

/** One step of a random history of the store, as the property below plays it. */
type Step =
  | { kind: 'create'; tenant: Tenant; environment: Environment }
  | { kind: 'revoke' | 'rotate' | 'present' | 'drop'; pick: number }
  | { kind: 'seed'; fixture: number; edited: boolean }
  | { kind: 'swap' }
  | { kind: 'restart' };

type Tenant = 'acme' | 'globex';
type Environment = 'production' | 'sandbox';

/** What the store should hold of a key: the model the property compares it with. */
interface ModelKey {
  id: string;
  secret: string;
  tenant: Tenant;
  environment: Environment;
  revoked: boolean;
  /** Whether this process has seen the key's secret (so the store can know its digest). */
  digestKnown: boolean;
}

const FIXTURES: readonly ApiKey[] = [0, 1].map((index) => ({
  id: `key_model_fixture_${index}`,
  name: `Fixture ${index}`,
  secret: `mbk_prod_${String(index).repeat(32)}`,
  environment: 'production',
  access: 'read_only',
}));

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    tenant: fc.constantFrom<Tenant>('acme', 'globex'),
    environment: fc.constantFrom<Environment>('production', 'sandbox'),
  }),
  fc.record({
    kind: fc.constantFrom('revoke' as const, 'rotate' as const, 'present' as const, 'drop' as const),
    pick: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('seed' as const),
    fixture: fc.nat({ max: FIXTURES.length - 1 }),
    edited: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('swap' as const) }),
  fc.record({ kind: fc.constant('restart' as const) }),
);

describe('key store lookup, over random histories', () => {
  test('finds exactly the active keys, in their own scope only, and counts the keys awaiting a digest', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(stepArbitrary, fc.boolean()), { maxLength: 40 }), (steps) => {
        const hmacSecret = randomBytes(32);
        let store = new KeyStore(hmacSecret);
        let model: ModelKey[] = [];
        const fixtureSecrets = FIXTURES.map((fixture) => fixture.secret);
        /** Seeds fixture `index` with its current secret, in the store and in the model. */
        const seed = (index: number): void => {
          const fixture = FIXTURES[index] as ApiKey;
          const secret = fixtureSecrets[index] as string;
          store.add('acme', { ...fixture, secret });
          const held = model.find((key) => key.id === fixture.id);
          if (held && held.secret === secret) {
            held.digestKnown = true;
          } else {
            model = model.filter((key) => key !== held);
            model.push({
              id: fixture.id,
              secret,
              tenant: 'acme',
              environment: 'production',
              revoked: false,
              digestKnown: true,
            });
          }
        };
        for (const [index, [step, lookUpAll]] of steps.entries()) {
          switch (step.kind) {
            case 'create': {
              const made = store.create(step.tenant, {
                name: 'k',
                environment: step.environment,
                access: 'full_access',
              });
              model.push({
                id: made.key.id,
                secret: made.secret,
                tenant: step.tenant,
                environment: step.environment,
                revoked: false,
                digestKnown: true,
              });
              break;
            }
            case 'revoke':
            case 'rotate':
            case 'present':
            case 'drop': {
              const key = model[step.pick % Math.max(1, model.length)];
              if (!key) break;
              if (step.kind === 'revoke') {
                store.revoke(key.tenant, key.id);
                key.revoked = true;
              } else if (step.kind === 'rotate') {
                const rotated = store.rotate(key.tenant, key.id);
                assert.equal(rotated === 'revoked', key.revoked);
                if (rotated && rotated !== 'revoked') {
                  key.revoked = true;
                  model.push({
                    ...key,
                    id: rotated.key.id,
                    secret: rotated.secret,
                    revoked: false,
                    digestKnown: true,
                  });
                }
              } else if (step.kind === 'present') {
                store.find(key.tenant, key.environment, key.secret);
                if (!key.revoked) key.digestKnown = true;
              } else {
                store.retain((record) => record.id !== key.id);
                model = model.filter((other) => other !== key);
              }
              break;
            }
            case 'seed': {
              if (step.edited) fixtureSecrets[step.fixture] = `mbk_prod_${randomBytes(16).toString('hex')}`;
              seed(step.fixture);
              break;
            }
            case 'swap': {
              // The fixture file gives each fixture key the other's secret: for a moment two keys
              // of one scope hold the same secret.
              fixtureSecrets.reverse();
              seed(0);
              seed(1);
              break;
            }
            case 'restart': {
              const records = store.records();
              store = new KeyStore(hmacSecret);
              store.load(records);
              for (const key of model) key.digestKnown = false;
              break;
            }
          }
          // Before any lookup below teaches the store a digest: what the history alone left.
          for (const tenant of ['acme', 'globex'] as const) {
            for (const environment of ['production', 'sandbox'] as const) {
              const awaiting = model.filter(
                (key) =>
                  key.tenant === tenant &&
                  key.environment === environment &&
                  !key.revoked &&
                  !key.digestKnown,
              ).length;
              assert.equal(
                store.keysAwaitingDigest(tenant, environment),
                awaiting,
                `${tenant}/${environment} after ${step.kind}`,
              );
            }
          }
          // Not after every step, so that keys also stay unpresented through later steps.
          if (!lookUpAll && index < steps.length - 1) continue;
          for (const key of model) {
            assert.equal(
              store.find(key.tenant, key.environment, key.secret)?.id,
              key.revoked ? undefined : key.id,
              `key ${key.id} after ${step.kind}`,
            );
            const otherTenant: Tenant = key.tenant === 'acme' ? 'globex' : 'acme';
            assert.equal(store.find(otherTenant, key.environment, key.secret), undefined);
            if (!key.revoked) key.digestKnown = true; // found just now
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
