// The team's own API test, in the same run as the conformance rules.
import { expect, test } from '@playwright/test';
import { startReferenceMock } from 'tenant-auth-conformance';

test('our API lists customers', async () => {
  const mock = await startReferenceMock();
  try {
    const response = await mock.fetch(`${mock.baseUrl('globex')}/customers`, {
      headers: {
        Authorization: `Bearer ${mock.keys['key_globex_prod_full']?.secret ?? ''}`,
        Accept: 'application/json',
      },
    });
    expect(response.status).toBe(200);
    await response.text();
  } finally {
    await mock.close();
  }
});
