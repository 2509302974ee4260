// How the suite follows a list's pages (conformance/judging/pages.ts): each way a target names the
// next page, never another origin, never the same URL twice, and the bounds on pages and records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Api } from '../../conformance/requests/api-client.ts';
import type { ResponseExchange } from '../../conformance/requests/exchange.ts';
import { followPages, linkNext, listBounds, nextPageOf, pageAfter } from '../../conformance/judging/pages.ts';
import { splitOptions, UsageError } from '../../conformance/run/run-options.ts';
import { readRunSettings } from '../../conformance/settings.ts';

const URL_ = 'https://acme.api.example/v1/customers';

function answer(body: unknown, headers: Record<string, string> = {}, status = 200): ResponseExchange {
  return {
    kind: 'response',
    status,
    headers,
    bodyText: JSON.stringify(body),
    durationMs: 1,
    request: { id: 'x', startedAt: new Date(), method: 'GET', url: URL_, headers: [] },
  };
}

test('Link rel="next" (quoted or not, among other links), resolved against the page URL', () => {
  assert.equal(
    linkNext('<https://a.example/p?page=1>; rel="prev", </v1/customers?page=3>; rel="next"'),
    '/v1/customers?page=3',
  );
  assert.equal(linkNext('<?page=2>; rel=next'), '?page=2');
  assert.equal(linkNext('<?page=2>; rel="next last"'), '?page=2');
  assert.equal(linkNext('<?page=9>; rel="last"'), undefined);
  assert.deepEqual(
    nextPageOf(answer({}, { link: '</v1/customers?page=2>; rel="next"' }), URL_)?.url,
    `${URL_}?page=2`,
  );
});

test("a link in the body, at the top or in a member object, HAL's next.href included", () => {
  const next = (body: unknown) => nextPageOf(answer(body), URL_);
  assert.equal(next({ data: [], next: '/v1/customers?after=5' })?.url, `${URL_}?after=5`);
  assert.equal(next({ data: [], links: { next_url: `${URL_}?p=2` } })?.url, `${URL_}?p=2`);
  assert.equal(next({ data: [], next_page_url: `${URL_}?page=2` })?.url, `${URL_}?page=2`);
  assert.equal(next({ value: [], nextLink: `${URL_}?skip=2` })?.url, `${URL_}?skip=2`);
  assert.equal(next({ value: [], '@odata.nextLink': `${URL_}?$skip=2` })?.url, `${URL_}?$skip=2`);
  assert.equal(next({ _links: { next: { href: '/v1/customers?page=2' } } })?.url, `${URL_}?page=2`);
  assert.match(next({ _links: { next: { href: '?page=2' } } })?.how ?? '', /"next\.href" link/);
  assert.match(next({ links: { next_url: '?p=2' } })?.how ?? '', /"next_url" link/);
  assert.equal(next({ data: [], next: null }), undefined);
  assert.equal(next({ data: [], next: '' }), undefined);
  assert.equal(next({ _links: { next: { href: '' } } }), undefined);
});

test('a token there only while a next page is: nextPageToken, next_page_token, next_cursor (Slack’s too)', () => {
  const next = (body: unknown) => nextPageOf(answer(body), `${URL_}?limit=5`)?.url;
  assert.equal(next({ customers: [], nextPageToken: 'g1' }), `${URL_}?limit=5&pageToken=g1`);
  assert.equal(next({ data: [], next_page_token: 't2' }), `${URL_}?limit=5&page_token=t2`);
  assert.equal(next({ data: [], response_metadata: { next_cursor: 's1' } }), `${URL_}?limit=5&cursor=s1`);
  assert.equal(next({ has_more: true, next_cursor: 'c1' }), `${URL_}?limit=5&cursor=c1`);
  assert.match(
    nextPageOf(answer({ nextPageToken: 'g1' }), URL_)?.how ?? '',
    /"nextPageToken" token \(sent as pageToken\)/,
  );
  // The last page: no token, an empty one, or has_more false.
  assert.equal(next({ customers: [] }), undefined);
  assert.equal(next({ customers: [], nextPageToken: '' }), undefined);
  assert.equal(next({ data: [], response_metadata: { next_cursor: '' } }), undefined);
  assert.equal(next({ has_more: false, next_cursor: 'c1' }), undefined);
  assert.equal(pageAfter(answer({ has_more: false, nextPageToken: 'g1' }), URL_), undefined);
});

test('a cursor while has_more, sent back under its parameter; the last id by Stripe’s convention', () => {
  const next = (body: unknown) => nextPageOf(answer(body), `${URL_}?limit=5`)?.url;
  assert.equal(next({ has_more: true, cursor: 'c0' }), `${URL_}?limit=5&cursor=c0`);
  assert.equal(next({ meta: { has_more: true, page_token: 't1' } }), `${URL_}?limit=5&page_token=t1`);
  assert.equal(next({ has_more: true, starting_after: 'cus_9' }), `${URL_}?limit=5&starting_after=cus_9`);
  assert.equal(
    next({ has_more: true, data: [{ id: 'cus_1' }, { id: 'cus_2' }] }),
    `${URL_}?limit=5&starting_after=cus_2`,
  );
  // Without has_more, a cursor may be the current page's: not a next page.
  assert.equal(next({ cursor: 'c0', data: [{ id: 'cus_1' }] }), undefined);
  assert.equal(next({ starting_after: 'cus_0', data: [{ id: 'cus_1' }] }), undefined);
  assert.equal(next({ has_more: false, data: [{ id: 'cus_1' }] }), undefined);
});

test('JSON:API’s page.after, sent as page[after]', () => {
  const next = (body: unknown) => nextPageOf(answer(body), `${URL_}?page%5Bsize%5D=2`)?.url;
  const expected = `${URL_}?page%5Bsize%5D=2&page%5Bafter%5D=a1`;
  assert.equal(next({ data: [], meta: { page: { after: 'a1' } } }), expected);
  assert.equal(next({ data: [], page: { after: 'a1' } }), expected);
  assert.equal(next({ data: [], meta: { page: { after: null } } }), undefined);
  assert.equal(next({ data: [], meta: { page: { after: '' } } }), undefined);
});

test('offset, limit and total: the next offset while records remain', () => {
  const next = (body: unknown) => nextPageOf(answer(body), URL_)?.url;
  assert.equal(next({ data: [], offset: 0, limit: 2, total: 5 }), `${URL_}?offset=2&limit=2`);
  assert.equal(next({ data: [], meta: { offset: 2, limit: 2, total_count: 5 } }), `${URL_}?offset=4&limit=2`);
  assert.match(
    nextPageOf(answer({ offset: 2, limit: 2, total: 5 }), URL_)?.how ?? '',
    /offset 2 \+ limit 2 < total 5/,
  );
  assert.equal(next({ data: [], offset: 4, limit: 2, total: 5 }), undefined);
  assert.equal(next({ data: [], offset: 3, limit: 2, total: 5 }), undefined);
  assert.equal(next({ data: [], offset: 0, limit: 0, total: 5 }), undefined);
  assert.equal(next({ data: [], offset: 0, limit: 1.5, total: 5 }), undefined);
  assert.equal(next({ data: [], offset: 0.5, limit: 1, total: 5 }), undefined);
  assert.equal(next({ data: [], offset: '0', limit: 2, total: 5 }), undefined);
  assert.equal(next({ data: [], offset: 0, limit: '2', total: 5 }), undefined);
  assert.equal(next({ data: [], offset: 0, limit: 2, total: '5' }), undefined);
});

test('a next page on another origin is never followed: the list is cut, and the cut says why', () => {
  for (const [body, headers, how] of [
    [{}, { link: '<https://evil.example/v1/customers?page=2>; rel="next"' }, /Link rel="next" header/],
    [{ next: 'http://acme.api.example/v1/customers?page=2' }, {}, /"next" link/],
    [{ _links: { next: { href: 'https://acme.api.example:8443/v1/customers' } } }, {}, /"next\.href" link/],
  ] as const) {
    assert.equal(nextPageOf(answer(body, headers), URL_), undefined);
    const step = pageAfter(answer(body, headers), URL_);
    assert.ok(step && 'cut' in step, JSON.stringify(step));
    assert.match(step.cut, how);
    assert.match(step.cut, /another origin \(.+, not https:\/\/acme\.api\.example\).*never sent/);
  }
  const step = pageAfter(answer({ next: 'http://[bad' }), URL_);
  assert.ok(step && 'cut' in step);
  assert.match(step.cut, /"next" link names "http:\/\/\[bad", which is no URL/);
});

test('a body that says more follows in a form the suite does not know cuts the list, naming the form', () => {
  const cut = (body: unknown) => {
    const step = pageAfter(answer(body), URL_);
    return step && 'cut' in step ? step.cut : undefined;
  };
  for (const flag of ['has_more', 'hasMore', 'has_next', 'hasNext', 'hasNextPage', 'more'])
    assert.match(cut({ data: [{ name: 'x' }], meta: { [flag]: true } }) ?? '', new RegExp(`"${flag}": true`));
  assert.match(cut({ data: [], NextToken: 'n1' }) ?? '', /"NextToken" names a next page/);
  assert.match(cut({ data: [], next: 3 }) ?? '', /"next" names a next page/);
  assert.match(cut({ data: [], pagination: { nextCursor: 'x' } }) ?? '', /"nextCursor"/);
  // The end of a list, said in any of these ways, is no cut.
  for (const body of [
    { data: [], hasMore: false, next: null, NextToken: '', nextCursor: false },
    { data: [{ next: 'x', hasMore: true }] },
    [{ has_more: true }],
    'text',
  ])
    assert.equal(pageAfter(answer(body), URL_), undefined, JSON.stringify(body));
});

/** An API whose list has `pages` pages of `perPage` records, by ?page=N and a Link header. */
function pagedApi(pages: number, perPage: number, selfLoop = false): Api & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get: (url) => {
      asked.push(url);
      const page = Number(new URL(url).searchParams.get('page') ?? '1');
      const link: Record<string, string> =
        page < pages ? { link: `<?page=${selfLoop ? page : page + 1}>; rel="next"` } : {};
      return Promise.resolve(
        answer({ data: Array.from({ length: perPage }, (_u, i) => ({ id: `r${page}-${i}` })) }, link),
      );
    },
  };
}

test('followPages stops at the last page, at --max-list-pages, at --max-list-records, and on a repeated URL', async () => {
  const headers = { Authorization: 'Bearer x' };
  const all = await followPages(pagedApi(4, 3), URL_, { headers }, { maxPages: 10, maxRecords: 1000 });
  assert.equal(all.pages.length, 4);
  assert.equal(all.stoppedBy, undefined);
  assert.equal(all.firstNext?.url, `${URL_}?page=2`);
  const byPages = await followPages(pagedApi(20, 3), URL_, { headers }, { maxPages: 10, maxRecords: 1000 });
  assert.equal(byPages.pages.length, 10);
  assert.match(byPages.stoppedBy ?? '', /--max-list-pages/);
  const byRecords = await followPages(pagedApi(20, 50), URL_, { headers }, { maxPages: 10, maxRecords: 120 });
  assert.equal(byRecords.pages.length, 3);
  assert.match(byRecords.stoppedBy ?? '', /--max-list-records/);
  const looping = pagedApi(5, 1, true);
  const loop = await followPages(looping, `${URL_}?page=1`, { headers }, { maxPages: 10, maxRecords: 1000 });
  assert.equal(looping.asked.length, 1);
  assert.equal(loop.pages.length, 1);
});

test('followPages ends at a next page that is not served, and says which and what it got', async () => {
  const headers = { Authorization: 'Bearer x' };
  const api = pagedApi(5, 2);
  const refusing: Api = {
    get: (url, options) => {
      const page = Number(new URL(url).searchParams.get('page') ?? '1');
      if (page === 3) return Promise.resolve(answer({ error: { code: 'unavailable' } }, {}, 503));
      return api.get(url, options);
    },
  };
  const list = await followPages(refusing, URL_, { headers }, { maxPages: 10, maxRecords: 1000 });
  assert.equal(list.pages.length, 3);
  assert.equal(list.stoppedBy, undefined);
  assert.deepEqual(list.unserved, { page: 3, url: `${URL_}?page=3`, answer: 'a 503' });
  const whole = await followPages(pagedApi(2, 2), URL_, { headers }, { maxPages: 10, maxRecords: 1000 });
  assert.equal(whole.unserved, undefined);
});

test("the bounds come from the run's settings, defaults 10 pages and 1000 records", () => {
  assert.deepEqual(listBounds(), { maxPages: 10, maxRecords: 1000 });
  assert.deepEqual(listBounds(readRunSettings({})), { maxPages: 10, maxRecords: 1000 });
  const settings = readRunSettings({ CONFORMANCE_MAX_LIST_PAGES: '3', CONFORMANCE_MAX_LIST_RECORDS: '200' });
  assert.deepEqual(listBounds(settings), {
    maxPages: 3,
    maxRecords: 200,
  });
});

test('--max-list-pages and --max-list-records: whole numbers in range, else a usage error naming the range', () => {
  const { flags } = splitOptions(['--max-list-pages', '3', '--max-list-records', '250']);
  assert.deepEqual([flags.maxListPages, flags.maxListRecords], ['3', '250']);
  for (const [option, value] of [
    ['--max-list-pages', '0'],
    ['--max-list-pages', '2.5'],
    ['--max-list-pages', '1001'],
    ['--max-list-records', 'many'],
    ['--max-list-records', '0'],
  ] as const)
    assert.throws(
      () => splitOptions([option, value]),
      (error: Error) =>
        error instanceof UsageError &&
        error.message.includes(`Invalid ${option} "${value}"`) &&
        /from 1 to/.test(error.message),
    );
});

test('followPages cuts the list at a next page on another origin, and never sends it the key', async () => {
  const asked: string[] = [];
  const api: Api = {
    get: (url) => {
      asked.push(url);
      const page = new URL(url).searchParams.get('pageToken');
      return Promise.resolve(
        page === null
          ? answer({ customers: [{ id: 'c1' }], nextPageToken: 'p2' })
          : answer(
              { customers: [{ id: 'c2' }] },
              { link: '<https://other.example/v1/customers?p=3>; rel="next"' },
            ),
      );
    },
  };
  const bounds = { maxPages: 10, maxRecords: 1000 };
  const list = await followPages(api, URL_, { headers: { Authorization: 'Bearer x' } }, bounds);
  assert.deepEqual(asked, [URL_, `${URL_}?pageToken=p2`]);
  assert.equal(list.pages.length, 2);
  assert.equal(list.firstNext?.url, `${URL_}?pageToken=p2`);
  assert.equal(list.cut?.page, 2);
  assert.match(list.cut?.form ?? '', /another origin \(https:\/\/other\.example/);
  assert.equal(list.stoppedBy, undefined);
  // A first page that cuts at once: nothing else asked, and no first next page to replay.
  asked.length = 0;
  const cutFirst: Api = {
    get: (url) => (asked.push(url), Promise.resolve(answer({ data: [{ id: 'a' }], hasMore: true }))),
  };
  const first = await followPages(cutFirst, URL_, { headers: {} }, bounds);
  assert.deepEqual([asked.length, first.cut?.page, first.firstNext], [1, 1, undefined]);
  assert.match(first.cut?.form ?? '', /"hasMore": true/);
});
