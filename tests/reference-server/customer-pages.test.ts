// The reference's paged customer list (--page-size): pages of N, has_more, the next page named by
// `Link: <…?cursor=…>; rel="next"`, and a cursor served only on the host of the tenant and
// environment it was issued for — another tenant's or environment's is 400 bad_request, as the
// decisions table says. Without the option the whole list is one answer (answer-bytes.test.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { secretOf, send, testServerPerSuite, type Reply } from '../support/reference-client.ts';
import { linkNext } from '../../conformance/judging/pages.ts';

const PAGE_SIZE = 2;

describe('reference server: GET /v1/customers in pages (--page-size)', () => {
  const target = testServerPerSuite({ customersPageSize: PAGE_SIZE });

  const list = (tenant: string, keyId: string, path = '/v1/customers'): Promise<Reply> =>
    send(target(), {
      tenant,
      path,
      headers: [['Authorization', `Bearer ${secretOf(target().fixtures, keyId)}`]],
    });
  const ids = (reply: Reply): string[] =>
    (JSON.parse(reply.body) as { data: { id: string }[] }).data.map((customer) => customer.id);
  const fixtureIds = (tenant: string): string[] =>
    target()
      .fixtures.tenants.find((candidate) => candidate.id === tenant)
      ?.customers.production.map((c) => c.id) ?? [];

  test('the pages hold every customer of the tenant once, in order; only the last has has_more false and no Link', async () => {
    const first = await list('acme', 'key_acme_prod_full');
    assert.equal(first.status, 200);
    assert.equal((JSON.parse(first.body) as { has_more: boolean }).has_more, true);
    const next = linkNext(String(first.headers.link));
    assert.ok(next?.startsWith('/v1/customers?cursor='), String(first.headers.link));
    const second = await list('acme', 'key_acme_prod_full', next);
    assert.equal(second.status, 200);
    assert.equal((JSON.parse(second.body) as { has_more: boolean }).has_more, false);
    assert.equal(second.headers.link, undefined);
    assert.deepEqual([...ids(first), ...ids(second)], fixtureIds('acme'));
    assert.equal(ids(first).length, PAGE_SIZE);
  });

  test("another tenant's cursor on this tenant's host is 400 bad_request, with no data", async () => {
    const globexFirst = await list('globex', 'key_globex_prod_full');
    const cursorPath = linkNext(String(globexFirst.headers.link));
    assert.ok(cursorPath);
    const replayed = await list('acme', 'key_acme_prod_full', cursorPath);
    assert.equal(replayed.status, 400);
    assert.equal((JSON.parse(replayed.body) as { error: { code: string } }).error.code, 'bad_request');
    for (const id of fixtureIds('globex')) assert.ok(!replayed.body.includes(id));
    // The same cursor on its own host is served: the refusal is about the host, not the cursor.
    assert.equal((await list('globex', 'key_globex_prod_full', cursorPath)).status, 200);
  });

  test('a cursor that is not one the server issued is 400 bad_request', async () => {
    for (const cursor of ['not-a-cursor', Buffer.from('["acme","production",-1]').toString('base64url')]) {
      const reply = await list('acme', 'key_acme_prod_full', `/v1/customers?cursor=${cursor}`);
      assert.equal(reply.status, 400, cursor);
    }
  });
});
