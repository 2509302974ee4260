// How the suite follows a list's pages (conformance/judging/pages.ts): each way a target names the
// next page, never another origin, never the same URL twice, and the bounds on pages and records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Api } from '../../conformance/requests/api-client.ts';
import type { ResponseExchange } from '../../conformance/requests/exchange.ts';
import { followPages, linkNext, listBounds, nextPageOf } from '../../conformance/judging/pages.ts';
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

test('a next or next_url link in the body, at the top or in a member object', () => {
  assert.equal(nextPageOf(answer({ data: [], next: '/v1/customers?after=5' }), URL_)?.url, `${URL_}?after=5`);
  assert.equal(
    nextPageOf(answer({ data: [], links: { next_url: `${URL_}?p=2` } }), URL_)?.url,
    `${URL_}?p=2`,
  );
  assert.equal(nextPageOf(answer({ data: [], next: null }), URL_), undefined);
});

test('a cursor while has_more, sent back under its parameter; the last id by Stripe’s convention', () => {
  const next = (body: unknown) => nextPageOf(answer(body), `${URL_}?limit=5`)?.url;
  assert.equal(next({ has_more: true, next_cursor: 'c1' }), `${URL_}?limit=5&cursor=c1`);
  assert.equal(next({ meta: { has_more: true, page_token: 't1' } }), `${URL_}?limit=5&page_token=t1`);
  assert.equal(next({ has_more: true, next_page_token: 't2' }), `${URL_}?limit=5&page_token=t2`);
  assert.equal(
    next({ has_more: true, data: [{ id: 'cus_1' }, { id: 'cus_2' }] }),
    `${URL_}?limit=5&starting_after=cus_2`,
  );
  assert.equal(next({ has_more: false, next_cursor: 'c1' }), undefined);
});

test('a next page on another origin is never followed', () => {
  assert.equal(
    nextPageOf(answer({}, { link: '<https://evil.example/v1/customers?page=2>; rel="next"' }), URL_),
    undefined,
  );
  assert.equal(nextPageOf(answer({ next: 'http://acme.api.example/v1/customers?page=2' }), URL_), undefined);
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
