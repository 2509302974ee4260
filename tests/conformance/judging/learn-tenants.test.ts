// What the suite learns of the tenants before judging (conformance/judging/knowledge.ts), from a
// hand-made API: each tenant's values from its own list (every page), minus what both hold and
// what an error body holds — except a record both are served whole, which is a leak; a keyless
// request served data; a list cut by a bound or by a page not served; the other tenant unanswered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learnTenants } from '../../../conformance/judging/knowledge.ts';
import type { Api, GetOptions } from '../../../conformance/requests/api-client.ts';
import { startRequest, type Exchange } from '../../../conformance/requests/exchange.ts';
import type { ResolvedTarget } from '../../../conformance/deployment/target.ts';

const OWN = 'https://acme.api.example.com/v1';
const OTHER = 'https://globex.api.example.com/v1';
const bounds = { maxPages: 10, maxRecords: 1000 };

type Answer = { status: number; body: unknown; headers?: Record<string, string> } | { error: string };

/** An API that answers each URL, per key (`none` without one), as the test says; records what it was asked. */
function fakeApi(answers: Record<string, Answer>): Api & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get(url: string, options: GetOptions = {}): Promise<Exchange> {
      const key = options.headers?.Authorization?.replace('Bearer ', '') ?? 'none';
      asked.push(`${key} ${url}`);
      const request = startRequest('GET', url, Object.entries(options.headers ?? {}));
      const found = answers[`${key} ${url}`];
      if (!found) return Promise.resolve({ kind: 'failure', request, durationMs: 1, error: 'unexpected' });
      if ('error' in found)
        return Promise.resolve({ kind: 'failure', request, durationMs: 1, error: found.error });
      return Promise.resolve({
        kind: 'response',
        request,
        durationMs: 1,
        status: found.status,
        headers: { 'content-type': 'application/json', ...found.headers },
        bodyText: JSON.stringify(found.body),
      });
    },
  };
}

function target(credentials: Record<string, string>, other = true): ResolvedTarget {
  return {
    baseUrl: OWN,
    ...(other ? { otherTenantBaseUrl: OTHER } : {}),
    credentials,
  } as unknown as ResolvedTarget;
}

const ada = { id: 'cus_acme_1', name: 'Ada Lovelace', email: 'ada@acme.example', plan: 'Enterprise-2024' };
const hank = {
  id: 'cus_globex_1',
  name: 'Hank Scorpio',
  email: 'hank@globex.example',
  plan: 'Enterprise-2024',
};
const keyless = {
  status: 401,
  body: { error: { code: 'missing_authorization_header', message: 'Authorization required' } },
};

test("each tenant's own values, without those both hold or an error body holds", async () => {
  const api = fakeApi({
    [`none ${OWN}/customers`]: keyless,
    [`own ${OWN}/customers`]: { status: 200, body: { data: [ada] } },
    [`other ${OTHER}/customers`]: { status: 200, body: { data: [hank] } },
  });
  const knowledge = await learnTenants(api, target({ fullAccess: 'own', otherTenant: 'other' }), bounds);
  assert.deepEqual(knowledge.own, {
    label: 'the tenant under test (acme.api.example.com)',
    values: new Set(['cus_acme_1', 'Ada Lovelace', 'ada@acme.example']),
  });
  assert.deepEqual(knowledge.other, {
    label: 'the other tenant (globex.api.example.com)',
    values: new Set(['cus_globex_1', 'Hank Scorpio', 'hank@globex.example']),
  });
  assert.deepEqual(
    knowledge.ownServed,
    new Set(['cus_acme_1', 'Ada Lovelace', 'ada@acme.example', 'Enterprise-2024']),
  );
  assert.deepEqual(Object.keys(knowledge).sort(), ['other', 'own', 'ownServed']);
  assert.deepEqual(api.asked.sort(), [
    `none ${OWN}/customers`,
    `other ${OTHER}/customers`,
    `own ${OWN}/customers`,
  ]);
});

test('what an error body holds is noise, taken from neither tenant', async () => {
  const api = fakeApi({
    [`none ${OWN}/customers`]: { status: 401, body: { error: { code: 'x', message: 'Ada Lovelace' } } },
    [`own ${OWN}/customers`]: { status: 200, body: { data: [ada] } },
    [`other ${OTHER}/customers`]: { status: 200, body: { data: [{ ...hank, name: 'Ada Lovelace' }] } },
  });
  const knowledge = await learnTenants(api, target({ readOnly: 'own', otherTenant: 'other' }), bounds);
  assert.equal(knowledge.own?.values.has('Ada Lovelace'), false);
  assert.equal(
    knowledge.own?.values.has('ada@acme.example'),
    true,
    'the read-only key learns when no full-access key is given',
  );
  assert.equal(knowledge.other?.values.has('Ada Lovelace'), false);
  assert.equal(knowledge.other?.values.has('hank@globex.example'), true);
});

test('a record both lists hold whole is a leak: its values stay in both tenants, and are named', async () => {
  const api = fakeApi({
    [`none ${OWN}/customers`]: keyless,
    [`own ${OWN}/customers`]: { status: 200, body: { data: [ada, hank] } },
    [`other ${OTHER}/customers`]: { status: 200, body: { data: [hank] } },
  });
  const knowledge = await learnTenants(api, target({ fullAccess: 'own', otherTenant: 'other' }), bounds);
  const shared = new Set(['cus_globex_1', 'Hank Scorpio', 'hank@globex.example', 'Enterprise-2024']);
  assert.deepEqual(knowledge.sharedRecords, shared);
  for (const value of shared) {
    assert.ok(knowledge.own?.values.has(value), value);
    assert.ok(knowledge.other?.values.has(value), value);
  }
  assert.equal(knowledge.own?.values.has('Ada Lovelace'), true);
});

test('a keyless request served data: named with the first tenant whose values it holds', async () => {
  const api = fakeApi({
    [`none ${OWN}/customers`]: { status: 200, body: { data: [ada, hank] } },
    [`own ${OWN}/customers`]: { status: 200, body: { data: [ada] } },
    [`other ${OTHER}/customers`]: { status: 200, body: { data: [hank] } },
  });
  const knowledge = await learnTenants(api, target({ fullAccess: 'own', otherTenant: 'other' }), bounds);
  assert.equal(knowledge.servedWithoutKey?.tenant, 'the tenant under test (acme.api.example.com)');
  assert.deepEqual(knowledge.servedWithoutKey?.values, ['cus_acme_1', 'Ada Lovelace', 'ada@acme.example']);
  assert.equal(knowledge.servedWithoutKey?.exchange.status, 200);
  // Not taken as noise: the tenants' values are whole.
  assert.equal(knowledge.own?.values.size, 3);
  const otherOnly = fakeApi({
    [`none ${OWN}/customers`]: { status: 302, body: {}, headers: { 'x-owner': 'Hank Scorpio' } },
    [`own ${OWN}/customers`]: { status: 200, body: { data: [ada] } },
    [`other ${OTHER}/customers`]: { status: 200, body: { data: [hank] } },
  });
  const other = await learnTenants(otherOnly, target({ fullAccess: 'own', otherTenant: 'other' }), bounds);
  assert.equal(other.servedWithoutKey?.tenant, 'the other tenant (globex.api.example.com)');
  assert.deepEqual(other.servedWithoutKey?.values, ['Hank Scorpio']);
  const clean = fakeApi({
    [`none ${OWN}/customers`]: { status: 200, body: { data: [] } },
    [`own ${OWN}/customers`]: { status: 200, body: { data: [ada] } },
  });
  assert.equal(
    (await learnTenants(clean, target({ fullAccess: 'own' }, false), bounds)).servedWithoutKey,
    undefined,
  );
});

test('the other tenant unanswered, a list refused, no key, no other URL: what is known says so', async () => {
  const api = fakeApi({
    [`none ${OWN}/customers`]: { error: 'ECONNRESET' },
    [`own ${OWN}/customers`]: { status: 403, body: { error: { code: 'forbidden', message: 'm' } } },
    [`other ${OTHER}/customers`]: { error: 'ECONNREFUSED' },
  });
  const knowledge = await learnTenants(api, target({ fullAccess: 'own', otherTenant: 'other' }), bounds);
  assert.deepEqual(knowledge, { otherUnanswered: `GET ${OTHER}/customers: ECONNREFUSED` });
  const ownFails = fakeApi({
    [`none ${OWN}/customers`]: keyless,
    [`own ${OWN}/customers`]: { error: 'reset' },
  });
  assert.deepEqual(await learnTenants(ownFails, target({ fullAccess: 'own' }, false), bounds), {});
  const noKeys = fakeApi({ [`none ${OWN}/customers`]: keyless });
  assert.deepEqual(await learnTenants(noKeys, target({ otherTenant: 'other' }, false), bounds), {});
  assert.deepEqual(noKeys.asked, [`none ${OWN}/customers`], 'no other URL: no request with its key');
});

test('every page of a list is learned; a bound or a page not served cuts it, and says so', async () => {
  const page2 = `${OWN}/customers?cursor=p2`;
  const otherPage2 = `${OTHER}/customers?cursor=q2`;
  const pages = {
    [`none ${OWN}/customers`]: keyless,
    [`own ${OWN}/customers`]: { status: 200, body: { data: [ada], has_more: true, next_cursor: 'p2' } },
    [`own ${page2}`]: { status: 200, body: { data: [{ id: 'cus_acme_2', name: 'Grace Hopper' }] } },
    [`other ${OTHER}/customers`]: { status: 200, body: { data: [hank], has_more: true, next_cursor: 'q2' } },
    [`other ${otherPage2}`]: { status: 500, body: {} },
  };
  const knowledge = await learnTenants(
    fakeApi(pages),
    target({ fullAccess: 'own', otherTenant: 'other' }),
    bounds,
  );
  assert.ok(knowledge.own?.values.has('Grace Hopper'), 'the second page was learned');
  assert.deepEqual(knowledge.otherNextPage, {
    url: otherPage2,
    how: 'the body\'s "next_cursor" token (sent as cursor)',
  });
  assert.deepEqual(knowledge.listsCut, [
    `The customer list of the other tenant (globex.api.example.com) was not followed to its end: its page 2 (${otherPage2}), which it named as the next one, got a 500; records past it were not checked.`,
  ]);
  const bounded = await learnTenants(fakeApi(pages), target({ fullAccess: 'own', otherTenant: 'other' }), {
    maxPages: 1,
    maxRecords: 1000,
  });
  assert.equal(bounded.own?.values.has('Grace Hopper'), false);
  assert.deepEqual(bounded.listsCut, [
    'The customer list of the tenant under test (acme.api.example.com) was followed no further than 1 pages (--max-list-pages) while it named a next page: records past it were not checked.',
    'The customer list of the other tenant (globex.api.example.com) was followed no further than 1 pages (--max-list-pages) while it named a next page: records past it were not checked.',
  ]);
});
