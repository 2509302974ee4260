// The rows of the decisions table (docs/decisions.md) for one step of a request's path, over
// real HTTPS — the key's permission to read customers.
// The other steps are in the files beside this one; decisions-table.ts holds what they share.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertErrorReply } from '../../../support/reference-assertions.ts';
import { useDecisionsServer } from './decisions-table.ts';

describe("the decisions table, the key's permission to read customers", () => {
  const table = useDecisionsServer();
  const { bearer, get, assertServes } = table;

  test('a valid key without the customers permission: 403 insufficient_permissions', async () => {
    for (const tenant of ['acme', 'globex']) {
      const reply = await get({ tenant, headers: bearer(`key_${tenant}_prod_no_customers`) });
      const body = assertErrorReply(
        reply,
        { status: 403, code: 'insufficient_permissions', challenge: 'insufficient_scope' },
        table.target.fixtures,
      );
      assert.equal(body.error.message, 'You do not have permission to access this resource.');
    }
  });

  test('Read Only keys read customers', async () => {
    for (const tenant of ['acme', 'globex']) {
      assertServes(await get({ tenant, headers: bearer(`key_${tenant}_prod_read`) }), tenant, 'production');
      assertServes(
        await get({ tenant, environment: 'sandbox', headers: bearer(`key_${tenant}_dev_read`) }),
        tenant,
        'sandbox',
      );
    }
  });
});
