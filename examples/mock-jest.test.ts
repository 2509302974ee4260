// Jest with the mock: a behaviour per test, reset after each, and the journal's assertions both as
// `expectRequests` and as matchers of Jest's `expect` (`expect.extend(journalMatchers)`). The
// package is an ES module: Jest runs it with `NODE_OPTIONS=--experimental-vm-modules`, TypeScript
// through Babel; a jest.config.json of `{ "testEnvironment": "node", "extensionsToTreatAsEsm": [".ts"],
// "transform": { "\\.ts$": ["babel-jest", { "presets": ["@babel/preset-typescript"] }] } }`.
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import {
  expectRequests,
  journalMatchers,
  rateLimited,
  startReferenceMock,
  type JournalMatchers,
  type ReferenceMock,
} from 'tenant-auth-conformance';

expect.extend(journalMatchers);
declare module 'expect' {
  // Jest's own declaration has these type parameters (merging requires the same); the journal's
  // matchers are asynchronous whatever R is: each returns a promise to await.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
  interface Matchers<R extends void | Promise<void>, T = unknown> extends JournalMatchers {}
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

test('a 429 is reported to the caller, and the journal says which behaviour answered', async () => {
  await mock.use(rateLimited({ retryAfter: 1, times: 1 }));
  expect(await listCustomers()).toBe(429);
  await expectRequests(mock, { path: '/v1/customers' }).toHaveCount(1);
  await expect(mock).toHaveRequestCount(1, { behaviour: 'error 429 rate_limited' });
});

test('it reads with the Read Only key and sends no tenant header', async () => {
  expect(await listCustomers()).toBe(200);
  await expect(mock).toHaveRequestCount(1, { tenant: 'acme' });
  await expect(mock).toHaveRequestsAllUsing({ keyId: 'key_acme_prod_read' });
  await expect(mock).toHaveNoRequest({ header: 'x-tenant-id' });
  await expect(mock).not.toHaveRequestCount(2);
});
