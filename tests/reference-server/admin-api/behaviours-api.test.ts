// The behaviours through the admin API (reference-server/admin-api/behaviours-api.ts), as a client
// in another language uses them on a server started by hand: added, listed with their counts,
// acting on the tenant API, removed; only with the admin token; bad input named, never a 5xx.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { keyManagementServerPerSuite } from '../../support/key-management-client.ts';

const READ_KEY = 'key_acme_prod_read';

describe('the admin API: behaviours', () => {
  const server = keyManagementServerPerSuite();

  test('POST adds, the tenant API answers by it, GET counts, DELETE removes', async () => {
    const km = server();
    const secret = km.fixtures.tenants[0]?.keys.find((key) => key.id === READ_KEY)?.secret ?? '';
    const added = await km.admin('POST', '/behaviours', {
      behaviours: [{ kind: 'error', status: 503, code: 'maintenance', retryAfter: 30, times: 1 }],
    });
    assert.equal(added.status, 201, added.body);
    const first = await km.customers('acme', 'production', secret);
    assert.equal(first.status, 503);
    assert.equal(first.headers['retry-after'], '30');
    assert.equal((await km.customers('acme', 'production', secret)).status, 200);
    const listed = (await km.admin('GET', '/behaviours')).json as {
      data: { matched: number; remaining: number }[];
    };
    assert.deepEqual(
      listed.data.map(({ matched, remaining }) => [matched, remaining]),
      [[1, 0]],
    );
    const removed = await km.admin('DELETE', '/behaviours');
    assert.deepEqual(removed.json, { object: 'behaviours_deletion', deleted: 1 });
    assert.deepEqual((await km.admin('GET', '/behaviours')).json, { object: 'list', data: [] });
  });

  test('without the admin token, with another method or media type, or bad JSON: a 4xx that says why', async () => {
    const km = server();
    assert.equal((await km.admin('GET', '/behaviours', undefined, 'not-the-token')).status, 401);
    const put = await km.admin('PUT', '/behaviours', { behaviours: [] });
    assert.equal(put.status, 405);
    assert.equal(put.headers.allow, 'GET, POST, DELETE');
    const form = await km.send({
      hostname: 'admin.localhost',
      method: 'POST',
      path: '/v1/behaviours',
      headers: { Authorization: `Bearer ${km.adminToken}`, 'Content-Type': 'text/plain' },
      body: 'x',
    });
    assert.equal(form.status, 415);
    const empty = await km.admin('POST', '/behaviours', { behaviours: [] });
    assert.equal(empty.status, 400);
    assert.match(empty.body, /1 to 100 behaviours/);
    const unknownKind = await km.admin('POST', '/behaviours', { behaviours: [{ kind: 'teapot' }] });
    assert.match(unknownKind.body, /kind: must be one of error, delay/);
  });
});
