// Vitest with the mock: a behaviour per test, reset after each, and the journal's assertions both
// as `expectRequests` and as matchers of Vitest's `expect` (`expect.extend(journalMatchers)`).
// `npx vitest run examples/mock-vitest.test.ts`.
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import {
  expectRequests,
  journalMatchers,
  unavailable,
  startReferenceMock,
  type JournalMatchers,
  type ReferenceMock,
} from 'tenant-auth-conformance';

expect.extend(journalMatchers);
declare module 'vitest' {
  // Vitest's own declaration has these type parameters; merging requires the same.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
  interface Matchers<T = any> extends JournalMatchers {}
}

let mock: ReferenceMock;
beforeAll(async () => {
  mock = await startReferenceMock();
});
afterEach(() => mock.reset()); // behaviours gone, journal empty
afterAll(() => mock.close());

/** Stands for the SDK under test: one call, no retry. */
async function listCustomers(): Promise<number> {
  const response = await mock.fetch(`${mock.baseUrl('acme')}/customers`, {
    headers: { Authorization: `Bearer ${mock.keys.key_acme_prod_read?.secret}`, Accept: 'application/json' },
  });
  await response.text();
  return response.status;
}

test('a 503 is reported to the caller, not retried in a loop', async () => {
  await mock.use(unavailable());
  expect(await listCustomers()).toBe(503);
  await expectRequests(mock, { path: '/v1/customers' }).toHaveCount(1);
  await expect(mock).toHaveRequestCount(1, { behaviour: 'error 503 service_unavailable' });
});

test('it reads with the Read Only key and sends no tenant header', async () => {
  expect(await listCustomers()).toBe(200);
  await expect(mock).toHaveRequestCount(1, { tenant: 'acme' });
  await expect(mock).toHaveRequestsAllUsing({ keyId: 'key_acme_prod_read' });
  await expect(mock).toHaveNoRequest({ header: 'x-tenant-id' });
  await expect(mock).not.toHaveRequestCount(2);
});
