// The rows of the decisions table (docs/decisions.md) for one step of a request's path, over
// real HTTPS — the key: known, of the host's tenant and environment, not revoked, its feature on.
// The other steps are in the files beside this one; decisions-table.ts holds what they share.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { comparable } from '../../../support/reference-assertions.ts';
import { useDecisionsServer, UNKNOWN_PROD_KEY, UNKNOWN_DEV_KEY } from './decisions-table.ts';

describe("the decisions table, the key: known, of the host's tenant and environment, not revoked, its feature on", () => {
  const table = useDecisionsServer();
  const { key, auth, bearer, get, assertServes, rejected } = table;

  test('unknown, revoked, truncated, extended and wrong-case keys: 401 invalid_api_key', async () => {
    const secret = key('key_acme_prod_full');
    const swapCase = (text: string): string =>
      text.replace(/[a-z]/gi, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    const lastLetter = secret.search(/[a-z][^a-z]*$/i);
    for (const presented of [
      UNKNOWN_PROD_KEY,
      key('key_acme_prod_revoked'),
      secret.slice(0, -1),
      secret.slice(1),
      'mbk_prod_',
      `${secret}A`,
      `${secret}=`,
      `A${secret}`,
      swapCase(secret),
      secret.toUpperCase(),
      secret.slice(0, lastLetter) + swapCase(secret.charAt(lastLetter)) + secret.slice(lastLetter + 1),
    ]) {
      assert.notEqual(presented, secret);
      rejected(await get({ headers: auth(`Bearer ${presented}`) }), 'invalid_api_key', 'invalid_token');
    }
  });

  test("tenant A's key on tenant B: the same status, body and headers as an unknown key", async () => {
    for (const [keyId, tenant] of [
      ['key_acme_prod_full', 'globex'],
      ['key_globex_prod_full', 'acme'],
      ['key_acme_prod_read', 'globex'],
      ['key_globex_prod_full', 'initech'],
    ] as const) {
      const foreign = await get({ tenant, headers: bearer(keyId) });
      const unknown = await get({ tenant, headers: auth(`Bearer ${UNKNOWN_PROD_KEY}`) });
      rejected(foreign, 'invalid_api_key', 'invalid_token');
      rejected(unknown, 'invalid_api_key', 'invalid_token');
      assert.deepEqual(comparable(foreign), comparable(unknown), `${keyId} on ${tenant}`);
    }
    for (const [keyId, tenant] of [
      ['key_acme_dev_full', 'globex'],
      ['key_globex_dev_full', 'acme'],
    ] as const) {
      const foreign = await get({ tenant, environment: 'sandbox', headers: bearer(keyId) });
      const unknown = await get({
        tenant,
        environment: 'sandbox',
        headers: auth(`Bearer ${UNKNOWN_DEV_KEY}`),
      });
      assert.deepEqual(comparable(foreign), comparable(unknown), `${keyId} on sandbox-${tenant}`);
    }
  });

  test('a development key on the production API and a production key on the sandbox API: 401 invalid_api_key', async () => {
    for (const tenant of ['acme', 'globex']) {
      for (const kind of ['full', 'read']) {
        rejected(
          await get({ tenant, headers: bearer(`key_${tenant}_dev_${kind}`) }),
          'invalid_api_key',
          'invalid_token',
        );
        rejected(
          await get({ tenant, environment: 'sandbox', headers: bearer(`key_${tenant}_prod_${kind}`) }),
          'invalid_api_key',
          'invalid_token',
        );
        // Controls: each key in its own environment.
        assertServes(
          await get({ tenant, headers: bearer(`key_${tenant}_prod_${kind}`) }),
          tenant,
          'production',
        );
        assertServes(
          await get({ tenant, environment: 'sandbox', headers: bearer(`key_${tenant}_dev_${kind}`) }),
          tenant,
          'sandbox',
        );
      }
    }
  });

  test('a revoked key: 401 invalid_api_key, like an unknown key', async () => {
    for (const tenant of ['acme', 'globex']) {
      const revoked = await get({ tenant, headers: bearer(`key_${tenant}_prod_revoked`) });
      rejected(revoked, 'invalid_api_key', 'invalid_token');
      const unknown = await get({ tenant, headers: auth(`Bearer ${UNKNOWN_PROD_KEY}`) });
      assert.deepEqual(comparable(revoked), comparable(unknown));
    }
  });

  test('initech (API keys feature disabled): nothing authenticates, no data', async () => {
    const initech = table.target.fixtures.tenants.find((tenant) => tenant.id === 'initech');
    assert.equal(initech?.apiKeysEnabled, false);
    for (const environment of ['production', 'sandbox'] as const) {
      rejected(await get({ tenant: 'initech', environment }), 'missing_authorization_header', 'realm');
      for (const keyId of ['key_acme_prod_full', 'key_acme_dev_full', 'key_globex_prod_full']) {
        rejected(
          await get({ tenant: 'initech', environment, headers: bearer(keyId) }),
          'invalid_api_key',
          'invalid_token',
        );
      }
    }
  });
});
