// The rows of the decisions table (docs/decisions.md) for one step of a request's path, over
// real HTTPS — success: exactly the key's own customers.
// The other steps are in the files beside this one; decisions-table.ts holds what they share.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
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

  test('validators: an ETag per tenant; If-None-Match answered 304 only after the key is checked', async () => {
    const etagOf = async (tenant: string): Promise<string> => {
      const reply = await get({ tenant, headers: bearer(`key_${tenant}_prod_full`) });
      assert.equal(reply.status, 200);
      assert.match(String(reply.headers.etag), /^"[A-Za-z0-9_-]{27}"$/);
      return String(reply.headers.etag);
    };
    const [acme, globex] = [await etagOf('acme'), await etagOf('globex')];
    assert.notEqual(acme, globex, 'no two tenants share a validator');
    assert.equal(await etagOf('acme'), acme, 'the same list keeps its validator');
    const notModified = await get({
      headers: [...bearer('key_acme_prod_full'), ['If-None-Match', `W/${acme}`]],
    });
    assert.deepEqual([notModified.status, notModified.body, notModified.headers.etag], [304, '', acme]);
    for (const headers of [
      [['If-None-Match', acme]],
      [['If-None-Match', '*']],
      [...bearer('key_globex_prod_full'), ['If-None-Match', acme]],
      [...bearer('key_acme_prod_full'), ['If-None-Match', globex]],
    ] as [string, string][][]) {
      const reply = await get({ headers });
      assert.notEqual(reply.status, 304, JSON.stringify(headers.map(([name]) => name)));
      assert.equal(reply.headers.etag === undefined, reply.status !== 200);
    }
  });
});
