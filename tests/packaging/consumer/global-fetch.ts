// Node's own global fetch through the mock's dispatcher, as the README suggests: it type-checks
// against @types/node's fetch (undici-types) as well as it runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startReferenceMock } from 'tenant-auth-conformance';

test("Node's global fetch with { dispatcher: mock.dispatcher } reaches a tenant", async () => {
  await using mock = await startReferenceMock();
  const key = mock.keys['key_acme_prod_read']?.secret ?? '';
  const response = await fetch(`${mock.baseUrl('acme')}/customers`, {
    dispatcher: mock.dispatcher,
    headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' },
  });
  assert.equal(response.status, 200);
  assert.equal(((await response.json()) as { object: string }).object, 'list');
});
