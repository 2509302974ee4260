// The rows of the decisions table (docs/decisions.md) for one step of a request's path, over
// real HTTPS — the route: path and method, after authentication.
// The other steps are in the files beside this one; decisions-table.ts holds what they share.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertErrorReply } from '../../../support/reference-assertions.ts';
import { useDecisionsServer } from './decisions-table.ts';

describe('the decisions table, the route: path and method, after authentication', () => {
  const table = useDecisionsServer();
  const { bearer, get, rejected } = table;

  test('an unknown path with a valid key: 404 not_found as JSON; without a key the 401 comes first', async () => {
    for (const path of [
      '/v1/customers/',
      '/v1/customer',
      '/v1/customers/cus_acme_prod_001',
      '/v2/customers',
      '/customers',
      '/v1',
      '/',
      '/v1/customers/../customers',
      '/V1/customers',
    ]) {
      const reply = await get({ path, headers: bearer('key_acme_prod_full') });
      assertErrorReply(reply, { status: 404, code: 'not_found' }, table.target.fixtures);
      rejected(await get({ path }), 'missing_authorization_header', 'realm');
    }
  });

  test('another method with a valid key: 405 method_not_allowed as JSON, with Allow', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const reply = await get({
        method,
        headers: [
          ...bearer('key_acme_prod_full'),
          ['Content-Type', 'application/json'],
          ['Content-Length', '0'],
        ],
      });
      assertErrorReply(reply, { status: 405, code: 'method_not_allowed' }, table.target.fixtures);
      assert.equal(reply.headers.allow, 'GET, HEAD');
    }
    // HEAD is allowed: the headers of the GET, no body.
    const head = await get({ method: 'HEAD', headers: bearer('key_acme_prod_full') });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.match(head.headers['content-type'] ?? '', /^application\/json/);
  });
});
