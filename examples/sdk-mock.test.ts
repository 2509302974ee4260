// An SDK's test file with the reference server as its mock, in-process: start it, call it the way
// the SDK does (here through the returned fetch; `mock.dispatcher` for undici, `mock.httpsAgent`
// for node:https, axios or got), and ask the client report whether the SDK called it by the
// spec's client rules. `node --import tsx --test examples/sdk-mock.test.ts`; the process exits on
// its own once the mock is closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startReferenceMock } from 'tenant-auth-conformance';

test('the SDK lists customers and calls the API as the spec asks', async () => {
  await using mock = await startReferenceMock();
  const key = await mock.mintKey({ tenant: 'acme', environment: 'production', access: 'read_only' });
  const response = await mock.fetch(`${mock.baseUrl('acme')}/customers`, {
    headers: {
      Authorization: `Bearer ${key.secret}`,
      Accept: 'application/json',
      'User-Agent': 'our-sdk/1.0',
    },
  });
  assert.equal(response.status, 200);
  await response.json();
  const report = await mock.clientReport();
  assert.equal(report.verdict, 'CLIENT CONFORMANT', JSON.stringify(report.clients, null, 2));
});
