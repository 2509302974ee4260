// The tests an SDK author writes against the in-process mock, one per situation: a 429 with
// Retry-After, a slow API, a reset connection, a key revoked while the client runs, exactly which
// requests were sent, and behaviours gone after each test. `listCustomers` stands for the SDK
// under test. `node --import tsx --test examples/mock-behaviours.test.ts`.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  connectionReset,
  expectRequests,
  rateLimited,
  revokeKeyAfter,
  slowAnswer,
  startReferenceMock,
  type ReferenceMock,
} from 'tenant-auth-conformance';

/** The SDK under test: retries a 429/503 after Retry-After, a GET once after a cut, stops on 401. */
async function listCustomers(
  mock: ReferenceMock,
  secret: string,
  options: { timeoutMs?: number } = {},
): Promise<{ status: number }> {
  for (let attempt = 1; ; attempt++) {
    let response: Response | undefined;
    try {
      response = (await mock.fetch(`${mock.baseUrl('acme')}/customers`, {
        headers: {
          Authorization: `Bearer ${secret}`,
          Accept: 'application/json',
          'User-Agent': 'our-sdk/1.0',
        },
        ...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
      })) as unknown as Response;
    } catch (error) {
      // A GET is idempotent: one retry after a cut connection is safe.
      if (attempt < 2 && !(error instanceof DOMException)) continue;
      throw error;
    }
    await response.arrayBuffer();
    const retryAfter = Number(response.headers.get('retry-after'));
    if ((response.status === 429 || response.status === 503) && attempt < 3 && retryAfter >= 0) {
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      continue;
    }
    return { status: response.status };
  }
}

describe('our SDK against the reference mock', () => {
  let mock: ReferenceMock;
  let secret: string;
  before(async () => {
    mock = await startReferenceMock();
    secret = mock.keys.key_acme_prod_read?.secret ?? '';
  });
  afterEach(() => mock.reset()); // behaviours gone, journal empty
  after(() => mock.close());

  test('on 429 with Retry-After it waits that long and retries once', async () => {
    await mock.use(rateLimited({ retryAfter: 1, times: 1 }));
    assert.equal((await listCustomers(mock, secret)).status, 200);
    await expectRequests(mock).toHaveCount(2);
    const report = await mock.clientReport();
    const rule = report.clients[0]?.rules.find((r) => r.id === 'CLIENT-HONOURS-RETRY-AFTER');
    assert.equal(rule?.verdict, 'pass');
  });

  test('when the API is slow, it times out', async () => {
    await mock.use(slowAnswer(300));
    await assert.rejects(listCustomers(mock, secret, { timeoutMs: 100 }), { name: 'TimeoutError' });
    // The server answers (to no one) when its delay ends, and journals it then: wait for that, so
    // that the next test's journal starts empty.
    for (let poll = 0; poll < 100 && (await mock.requests()).length === 0; poll++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await expectRequests(mock, { behaviour: 'delay 300 ms' }).toHaveCount(1);
  });

  test('a reset connection is retried once, safely (a GET)', async () => {
    await mock.use(connectionReset({ times: 1 }));
    assert.equal((await listCustomers(mock, secret)).status, 200);
    await expectRequests(mock, { behaviour: 'reset' }).toHaveCount(1);
    await expectRequests(mock, { status: 200 }).toHaveCount(1);
  });

  test('a key revoked while it runs: it stops at the refusal and does not hammer', async () => {
    const key = await mock.mintKey({ tenant: 'acme', access: 'read_only' });
    await mock.use(revokeKeyAfter(key.id, 2));
    const statuses = [];
    for (let call = 0; call < 5; call++) {
      const { status } = await listCustomers(mock, key.secret);
      statuses.push(status);
      if (status === 401) break; // report it to the caller, never retry the same key
    }
    assert.deepEqual(statuses, [200, 200, 401]);
    assert.equal((await mock.clientReport()).verdict, 'CLIENT CONFORMANT');
  });

  test('it sent exactly two requests, both with the Read Only key, none with a tenant header', async () => {
    await listCustomers(mock, secret);
    await listCustomers(mock, secret);
    const sent = expectRequests(mock, { tenant: 'acme', path: '/v1/customers' });
    await sent.toHaveCount(2);
    await sent.toAllUse({ keyId: 'key_acme_prod_read' });
    await sent.toHaveNone({ header: 'x-tenant-id' });
  });

  test('after each test, the behaviours it added are gone', async () => {
    assert.deepEqual(await mock.behaviours(), []);
    assert.equal((await listCustomers(mock, secret)).status, 200);
  });
});
