// Playwright Test with the mock: the journal's assertions as matchers of Playwright's `expect`
// (`expect.extend(journalMatchers)`), and a behaviour per test reset after each.
// `npx playwright test examples/mock-matchers.spec.ts` with a config whose testDir holds it.
import { test as base, expect as baseExpect } from '@playwright/test';
import {
  journalMatchers,
  rateLimited,
  startReferenceMock,
  type ReferenceMock,
} from 'tenant-auth-conformance';

const expect = baseExpect.extend(journalMatchers);

/** The mock as a worker fixture: one server per worker, behaviours and journal reset per test. */
const test = base.extend<{ mock: ReferenceMock }, { workerMock: ReferenceMock }>({
  workerMock: [
    // Playwright reads a fixture's dependencies from this pattern: none, written as it requires.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const mock = await startReferenceMock();
      await use(mock);
      await mock.close();
    },
    { scope: 'worker' },
  ],
  mock: async ({ workerMock }, use) => {
    await use(workerMock);
    await workerMock.reset();
  },
});

test('the client reads with the Read Only key and sends no tenant header', async ({ mock }) => {
  const key = mock.keys.key_acme_prod_read?.secret ?? '';
  const response = await mock.fetch(`${mock.baseUrl('acme')}/customers`, {
    headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' },
  });
  expect(response.status).toBe(200);
  await response.text();
  await expect(mock).toHaveRequestCount(1, { tenant: 'acme' });
  await expect(mock).toHaveRequestsAllUsing({ keyId: 'key_acme_prod_read' });
  await expect(mock).toHaveNoRequest({ header: 'x-tenant-id' });
  await expect(mock).not.toHaveRequestCount(2);
});

test('a 429 is answered once, and the journal says by which behaviour', async ({ mock }) => {
  await mock.use(rateLimited({ retryAfter: 1, times: 1 }));
  const key = mock.keys.key_acme_prod_read?.secret ?? '';
  const response = await mock.fetch(`${mock.baseUrl('acme')}/customers`, {
    headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' },
  });
  expect(response.status).toBe(429);
  await response.text();
  await expect(mock).toHaveRequestCount(1, { behaviour: 'error 429 rate_limited' });
});
