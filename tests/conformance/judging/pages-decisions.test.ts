// Each decision of the page reader (conformance/judging/pages.ts) at its edge, on hand-made
// answers: the bounds reached exactly, what counts as a record, a next page that got no answer,
// the Link header's letter case, the smallest page. pages.test.ts shows each form of next page;
// here the comparisons and conditions between them are pinned down (npm run mutation:judging).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Api, GetOptions } from '../../../conformance/requests/api-client.ts';
import type { Exchange, ResponseExchange } from '../../../conformance/requests/exchange.ts';
import {
  followPages,
  linkNext,
  nextPageOf,
  pageAfter,
  recordCount,
} from '../../../conformance/judging/pages.ts';

const URL_ = 'https://acme.api.example/v1/customers';
const BOUNDS = { maxPages: 10, maxRecords: 1000 };

function answer(body: unknown, headers: Record<string, string> = {}, status = 200): ResponseExchange {
  return {
    kind: 'response',
    status,
    headers,
    bodyText: typeof body === 'string' ? body : JSON.stringify(body),
    durationMs: 1,
    request: { id: 'x', startedAt: new Date(), method: 'GET', url: URL_, headers: [] },
  };
}

const next = (body: unknown, url = URL_) => nextPageOf(answer(body), url)?.url;

/** An API answering each URL from `pages` (by its `page` parameter, 1 when none), recording what it was asked. */
function scripted(pages: (url: string) => Exchange): Api & { asked: [string, GetOptions | undefined][] } {
  const asked: [string, GetOptions | undefined][] = [];
  return {
    asked,
    get: (url, options) => {
      asked.push([url, options]);
      return Promise.resolve(pages(url));
    },
  };
}

const pageNumber = (url: string): number => Number(new URL(url).searchParams.get('page') ?? '1');

/** `perPage` records a page, a Link to the next page up to page `last`. */
function records(last: number, perPage: number) {
  return (url: string): Exchange => {
    const page = pageNumber(url);
    const link: Record<string, string> = page < last ? { link: `<?page=${page + 1}>; rel="next"` } : {};
    return answer({ data: Array.from({ length: perPage }, (_u, i) => ({ id: `r${page}-${i}` })) }, link);
  };
}

test('recordCount counts the items of arrays of objects, at any depth, and no array of plain values', () => {
  assert.equal(recordCount(answer({ data: [{ id: 'a', tags: ['x', 'y', 'z'] }, { id: 'b' }] })), 2);
  assert.equal(recordCount(answer({ meta: { ids: ['a', 'b'] }, data: [] })), 0);
  assert.equal(recordCount(answer({ results: { items: [{ id: 'a' }, null, { id: 'c' }] } })), 3);
  assert.equal(recordCount(answer([{ id: 'a' }, { id: 'b', children: [{ id: 'c' }] }])), 3);
  assert.equal(recordCount(answer('not json')), 0);
  assert.equal(recordCount(answer({ data: [[1], [2]] })), 2);
});

/** A list of `last` pages of `perPage` records, followed within the bounds given. */
const follow = (last: number, perPage: number, maxPages: number, maxRecords: number) =>
  followPages(scripted(records(last, perPage)), URL_, { headers: {} }, { maxPages, maxRecords });

test('--max-list-records stops once the records read reach the bound exactly, not before', async () => {
  // 3 records a page: after two pages, 6 records.
  const atBound = await follow(5, 3, 10, 6);
  assert.equal(atBound.pages.length, 2);
  assert.match(atBound.stoppedBy ?? '', /^6 records \(--max-list-records\)$/);
  assert.equal((await follow(5, 3, 10, 7)).pages.length, 3);
});

test('--max-list-pages stops at the bound exactly; a list as long as the bound is whole', async () => {
  const whole = await follow(3, 1, 3, 1000);
  assert.deepEqual([whole.pages.length, whole.stoppedBy], [3, undefined]);
  const longer = await follow(4, 1, 3, 1000);
  assert.deepEqual([longer.pages.length, longer.stoppedBy], [3, '3 pages (--max-list-pages)']);
});

test('over any list length and bounds, followPages asks each page once and never past a bound', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 0, max: 4 }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 20 }),
      async (last, perPage, maxPages, maxRecords) => {
        const api = scripted(records(last, perPage));
        const list = await followPages(api, URL_, { headers: {} }, { maxPages, maxRecords });
        const fetched = list.pages.length;
        assert.equal(api.asked.length, fetched);
        assert.equal(new Set(api.asked.map(([url]) => url)).size, fetched);
        assert.ok(fetched <= Math.min(last, maxPages));
        // Read before the last request: it was sent only while under both bounds.
        assert.ok(fetched === 1 || (fetched - 1) * perPage < maxRecords);
        const whole = fetched === last;
        assert.equal(list.stoppedBy === undefined, whole);
      },
    ),
    { numRuns: 150 },
  );
});

test('the first request carries the headers and note given; each next page says how it was named', async () => {
  const api = scripted(records(2, 1));
  await followPages(api, URL_, { headers: { Authorization: 'Bearer $K' }, note: 'learning' }, BOUNDS);
  assert.deepEqual(api.asked[0], [URL_, { headers: { Authorization: 'Bearer $K' }, note: 'learning' }]);
  assert.deepEqual(api.asked[1], [
    `${URL_}?page=2`,
    { headers: { Authorization: 'Bearer $K' }, note: 'the next page, named by the Link rel="next" header' },
  ]);
  const plain = scripted(records(1, 1));
  await followPages(plain, URL_, { headers: {} }, BOUNDS);
  assert.deepEqual(plain.asked[0]?.[1], { headers: {} });
});

test('a first answer that is no 200, or none, is the whole list: nothing else is asked', async () => {
  const linked = { link: '<?page=2>; rel="next"' };
  for (const first of [
    answer({ data: [{ id: 'a' }] }, linked, 401),
    answer({ data: [{ id: 'a' }] }, linked, 206),
    { kind: 'failure', error: 'ECONNREFUSED', durationMs: 1, request: answer({}).request } as const,
  ]) {
    const api = scripted(() => first);
    const list = await followPages(api, URL_, { headers: {} }, BOUNDS);
    assert.deepEqual([api.asked.length, list.pages.length, list.firstNext], [1, 1, undefined]);
  }
});

test('a next page that got no answer at all ends the list, said as no answer of the target', async () => {
  const api = scripted((url) =>
    pageNumber(url) === 2
      ? { kind: 'failure', error: 'ECONNRESET', durationMs: 1, request: answer({}).request }
      : records(5, 1)(url),
  );
  const list = await followPages(api, URL_, { headers: {} }, BOUNDS);
  assert.equal(list.pages.length, 2);
  assert.deepEqual(list.unserved, { page: 2, url: `${URL_}?page=2`, answer: 'no answer of the target' });
  const redirected = scripted((url) => (pageNumber(url) === 3 ? answer({}, {}, 302) : records(5, 1)(url)));
  const moved = await followPages(redirected, URL_, { headers: {} }, BOUNDS);
  assert.deepEqual(moved.unserved, { page: 3, url: `${URL_}?page=3`, answer: 'a 302' });
});

test('a cut on a later page is said with the number of the page that named it', async () => {
  const api = scripted((url) =>
    pageNumber(url) === 3 ? answer({ data: [{ id: 'c' }], hasMore: true }) : records(5, 1)(url),
  );
  const list = await followPages(api, URL_, { headers: {} }, BOUNDS);
  assert.deepEqual(list.cut?.page, 3);
  assert.equal(list.firstNext?.url, `${URL_}?page=2`);
});

test('Link rel is matched in any letter case and among several relations; a link without rel is none', () => {
  assert.equal(linkNext('<?page=2>; REL="NEXT"'), '?page=2');
  assert.equal(linkNext('<?page=2>; rel="prev Next"'), '?page=2');
  assert.equal(linkNext('<?page=2>;rel=next'), '?page=2');
  assert.equal(linkNext('<?page=2>; title="next"'), undefined);
  assert.equal(linkNext('<?page=2>'), undefined);
  assert.equal(linkNext('<?page=2>; rel="nextpage"'), undefined);
  assert.equal(linkNext(''), undefined);
  assert.equal(linkNext('<?a=1>; rel="prev"; title="x", <?a=3>; rel="next"'), '?a=3');
});

test('offset paging: a page of one record is a page; a total of the other name, or none, decides', () => {
  assert.equal(next({ offset: 0, limit: 1, total: 2 }), `${URL_}?offset=1&limit=1`);
  assert.equal(next({ offset: 1, limit: 1, total: 2 }), undefined);
  assert.equal(next({ offset: 0, limit: 1, total: null, total_count: 3 }), `${URL_}?offset=1&limit=1`);
  assert.equal(next({ offset: 0, limit: 1 }), undefined);
  // An object without paging numbers is passed over for the next one that has them.
  assert.equal(
    next({ links: { self: URL_ }, paging: { offset: 0, limit: 2, total: 3 } }),
    `${URL_}?offset=2&limit=2`,
  );
});

test("Stripe's last id: only a non-empty string id of an object, in the first array that has one", () => {
  assert.equal(next({ has_more: true, data: [{ id: 'a' }, { id: '' }] }), undefined);
  assert.equal(next({ has_more: true, data: [{ id: 'a' }, { id: 7 }] }), undefined);
  assert.equal(next({ has_more: true, data: ['a', 'b'] }), undefined);
  assert.equal(next({ has_more: true, tags: [], data: [{ id: 'b' }] }), `${URL_}?starting_after=b`);
  assert.equal(next({ has_more: true, meta: { data: [{ id: 'm' }] } }), `${URL_}?starting_after=m`);
  assert.equal(next({ has_more: true, cursor: '', data: [{ id: 'b' }] }), `${URL_}?starting_after=b`);
});

test('a token or cursor that is no string is no next page; a link field checked before a token', () => {
  assert.equal(next({ has_more: true, cursor: 5, data: [] }), undefined);
  assert.equal(next({ data: [], nextPageToken: 5 }), undefined);
  assert.equal(next({ next: '?page=2', nextPageToken: 't' }), `${URL_}?page=2`);
  assert.equal(next({ _links: { next: 'x' } }), `${URL_.replace('customers', 'x')}`);
  assert.equal(next({ meta: { page: 'x' }, data: [] }), undefined);
  assert.equal(next({ data: [], page: { after: 7 } }), undefined);
});

test('a body that names something after "next" only where the name begins with it is a cut', () => {
  const cut = (body: unknown) => {
    const step = pageAfter(answer(body), URL_);
    return step && 'cut' in step ? step.cut : undefined;
  };
  assert.equal(cut({ data: [], is_next: 'x', context_next: 'y' }), undefined);
  assert.equal(cut({ data: [], has_more: false, more: false }), undefined);
  assert.match(cut({ data: [], NEXT_PAGE: 'p2' }) ?? '', /"NEXT_PAGE"/);
  assert.match(cut({ data: [], nextOffset: 0 }) ?? '', /"nextOffset"/);
});

test('Link parameters: rel after another parameter, blanks around ";" and "="', () => {
  assert.equal(linkNext('<?page=2>; title="x"; rel="next"'), '?page=2');
  assert.equal(linkNext('<?page=2> ; rel="next"'), '?page=2');
  assert.equal(linkNext('<?page=2>; rel = "next"'), '?page=2');
});

test('a next.href that is no string is no link, and the body is cut at it; has_more false anywhere ends it', () => {
  assert.equal(nextPageOf(answer({ _links: { next: { href: 5 } } }), URL_), undefined);
  const step = pageAfter(answer({ _links: { next: { href: 5 } } }), URL_);
  assert.ok(step && 'cut' in step);
  assert.equal(next({ has_more: false, meta: { count: 1 }, nextPageToken: 'g1' }), undefined);
});

test('how each next page was named, for the note of its request', () => {
  const how = (body: unknown) => nextPageOf(answer(body), URL_)?.how;
  assert.equal(how({ has_more: true, cursor: 'c' }), `the body's "cursor" cursor (sent as cursor)`);
  assert.equal(
    how({ has_more: true, data: [{ id: 'a' }] }),
    "has_more and the last record's id (sent as starting_after)",
  );
  assert.equal(how({ page: { after: 'a' } }), `the body's "page.after" cursor (sent as page[after])`);
});

test('an array of nulls holds no record', () => {
  assert.equal(recordCount(answer({ data: [null, null], more: [1, 2] })), 0);
});
