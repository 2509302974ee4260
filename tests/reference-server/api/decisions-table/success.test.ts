// The rows of the decisions table (docs/decisions.md) for one step of a request's path, over
// real HTTPS — success: exactly the key's own customers.
// The other steps are in the files beside this one; decisions-table.ts holds what they share.

import { describe, test } from 'node:test';
import { assertChallenge } from '../../../support/reference-assertions.ts';
import { useDecisionsServer } from './decisions-table.ts';

describe("the decisions table, success: exactly the key's own customers", () => {
  const table = useDecisionsServer();
  const { bearer, get, assertServes } = table;

  test('success: each key gets exactly its own tenant and environment customers, schema-valid', async () => {
    for (const tenant of ['acme', 'globex']) {
      const reply = await get({
        tenant,
        headers: [
          ...bearer(`key_${tenant}_prod_full`),
          ['Accept', 'application/json'],
          ['Content-Type', 'application/json'],
        ],
      });
      assertServes(reply, tenant, 'production');
      assertChallenge(reply, 'none');
      assertServes(
        await get({ tenant, environment: 'sandbox', headers: bearer(`key_${tenant}_dev_full`) }),
        tenant,
        'sandbox',
      );
    }
  });
});
