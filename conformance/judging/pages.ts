// A target's list may come in pages: what the suite learns of a tenant's data, and what the rules
// that read a tenant's own list look at, follow them — up to a bound, so that a run stays short
// against a tenant with thousands of records (docs/decisions/0023, 0033). The next page is named by
//   - a `Link: <…>; rel="next"` header field (RFC 8288), relative or absolute, or
//   - a link in the body, at its top level or in a member object (`links`, `meta`, `_links`):
//     `next`, `next_url`, `next_page_url`, `nextLink`, `@odata.nextLink`, or HAL's `next.href`, or
//   - a token that is there only while a next page is: `nextPageToken` (sent back as `pageToken`,
//     Google's APIs), `next_page_token` (as `page_token`), `next_cursor` (as `cursor`, Slack's
//     `response_metadata`), unless the body says `has_more: false`, or
//   - while the body says `has_more: true`: a cursor — `cursor` (as `cursor`), `page_token` (as
//     `page_token`), `starting_after` (as `starting_after`) — or, with none, the `id` of the last
//     record (as `starting_after`, Stripe's convention), or
//   - a `page` object (top level or in `meta`) holding `after` (sent as `page[after]`, JSON:API's
//     cursor pagination), or
//   - numbers `offset`, `limit` and `total` (or `total_count`) with offset + limit < total (the next
//     page is `offset=offset+limit`).
// A next page the suite can't or mustn't follow cuts the list, and the cut names the form it met:
// a link to another origin (the key is never sent there: it was given for the target's host), a
// link that is no URL, or a body that says more follows (`has_more`, `hasMore`, `has_next`, a
// `next…` member) in no form above. A cut list is never taken for a whole one.
import type { Api } from '../requests/api-client.ts';
import { jsonBody, type Exchange, type ResponseExchange } from '../requests/exchange.ts';
import { runSettings, type RunSettings } from '../settings.ts';

/** How far one tenant's list (in one environment) is followed: `--max-list-pages`, `--max-list-records`. */
export interface ListBounds {
  maxPages: number;
  maxRecords: number;
}

export function listBounds(
  settings: Pick<RunSettings, 'maxListPages' | 'maxListRecords'> = runSettings(),
): ListBounds {
  return { maxPages: settings.maxListPages, maxRecords: settings.maxListRecords };
}

/** The next page an answer names, and how (for the reports). */
export interface NextPage {
  url: string;
  how: string;
}

/** A next page the answer names that the suite can't or mustn't follow: the form it met, and why. */
export interface PageCut {
  cut: string;
}

type JsonObject = Record<string, unknown>;

/** Body members holding the next page's URL. */
const LINK_FIELDS = ['next', 'next_url', 'next_page_url', 'nextLink', '@odata.nextLink'];
/** Tokens present only while a next page is, and the query parameter each is sent back as. */
const TOKEN_FIELDS: readonly (readonly [string, string])[] = [
  ['nextPageToken', 'pageToken'],
  ['next_page_token', 'page_token'],
  ['next_cursor', 'cursor'],
];
/** Cursors that name the next page only while the body says `has_more: true`. */
const CURSOR_FIELDS: readonly (readonly [string, string])[] = [
  ['cursor', 'cursor'],
  ['page_token', 'page_token'],
  ['starting_after', 'starting_after'],
];
/** Flags by which a body says more records follow. */
const MORE_FLAGS = ['has_more', 'hasMore', 'has_next', 'hasNext', 'hasNextPage', 'more'];
const TOTAL_FIELDS = ['total', 'total_count'];

/** The page after `page` (the answer to GET `url`) when it names one the suite may follow. */
export function nextPageOf(page: ResponseExchange, url: string): NextPage | undefined {
  const step = pageAfter(page, url);
  return step && 'url' in step ? step : undefined;
}

/**
 * What comes after `page` (the answer to GET `url`): the next page, a cut (a next page named in a
 * way the suite can't or mustn't follow), or undefined at the end of the list.
 */
export function pageAfter(page: ResponseExchange, url: string): NextPage | PageCut | undefined {
  const header = linkNext(page.headers.link);
  if (header !== undefined) return linkTo(header, url, 'the Link rel="next" header');
  const json = jsonBody(page);
  if (!isObject(json)) return undefined;
  const objects = [json, ...memberObjects(json)];
  return (
    bodyLink(objects, url) ??
    token(objects, url) ??
    cursorWhileMore(objects, url) ??
    pageAfterCursor(json, url) ??
    offsetPage(objects, url) ??
    unknownMore(objects)
  );
}

/** A link to the next page: followed on the page's origin, a cut anywhere else. */
function linkTo(candidate: string, url: string, how: string): NextPage | PageCut {
  let next: URL;
  try {
    next = new URL(candidate, url);
  } catch {
    return { cut: `${how} names "${candidate}", which is no URL` };
  }
  const origin = new URL(url).origin;
  return next.origin === origin
    ? { url: next.toString(), how }
    : {
        cut: `${how} names a page on another origin (${next.origin}, not ${origin}): not followed, since the key is never sent to another origin`,
      };
}

function bodyLink(objects: readonly JsonObject[], url: string): NextPage | PageCut | undefined {
  for (const object of objects) {
    for (const field of LINK_FIELDS) {
      const value = object[field];
      if (typeof value === 'string' && value !== '') return linkTo(value, url, `the body's "${field}" link`);
    }
    // HAL: `_links: { next: { href } }`.
    const next = object.next;
    if (isObject(next) && typeof next.href === 'string' && next.href !== '')
      return linkTo(next.href, url, `the body's "next.href" link`);
  }
  return undefined;
}

function token(objects: readonly JsonObject[], url: string): NextPage | undefined {
  if (objects.some((object) => object.has_more === false)) return undefined;
  for (const object of objects)
    for (const [field, parameter] of TOKEN_FIELDS) {
      const value = object[field];
      if (typeof value === 'string' && value !== '')
        return withParameter(url, parameter, value, `the body's "${field}" token (sent as ${parameter})`);
    }
  return undefined;
}

function cursorWhileMore(objects: readonly JsonObject[], url: string): NextPage | undefined {
  if (!objects.some((object) => object.has_more === true)) return undefined;
  for (const object of objects)
    for (const [field, parameter] of CURSOR_FIELDS) {
      const value = object[field];
      if (typeof value === 'string' && value !== '')
        return withParameter(url, parameter, value, `the body's "${field}" cursor (sent as ${parameter})`);
    }
  const lastId = lastRecordId(objects);
  return lastId === undefined
    ? undefined
    : withParameter(
        url,
        'starting_after',
        lastId,
        "has_more and the last record's id (sent as starting_after)",
      );
}

/** JSON:API's cursor pagination: `page.after` (or `meta.page.after`), sent as `page[after]`. */
function pageAfterCursor(json: JsonObject, url: string): NextPage | undefined {
  for (const holder of [json, json.meta]) {
    const pageObject = isObject(holder) ? holder.page : undefined;
    const after = isObject(pageObject) ? pageObject.after : undefined;
    if (typeof after === 'string' && after !== '')
      return withParameter(url, 'page[after]', after, `the body's "page.after" cursor (sent as page[after])`);
  }
  return undefined;
}

/** `offset`, `limit` and `total` (or `total_count`) in one object: the next offset while records remain. */
function offsetPage(objects: readonly JsonObject[], url: string): NextPage | undefined {
  for (const object of objects) {
    const { offset, limit } = object;
    const total = TOTAL_FIELDS.map((field) => object[field]).find((value) => typeof value === 'number');
    if (typeof offset !== 'number' || typeof limit !== 'number' || typeof total !== 'number') continue;
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(limit) || limit < 1) continue;
    if (offset + limit >= total) return undefined;
    const next = withParameter(url, 'offset', String(offset + limit), '');
    return withParameter(
      next.url,
      'limit',
      String(limit),
      `offset ${offset} + limit ${limit} < total ${total}`,
    );
  }
  return undefined;
}

/** A body that says more follows, in a form the suite does not know: a cut that names it. */
function unknownMore(objects: readonly JsonObject[]): PageCut | undefined {
  for (const object of objects) {
    const flag = MORE_FLAGS.find((name) => object[name] === true);
    if (flag !== undefined)
      return { cut: `the body says "${flag}": true, but names its next page in no form the suite follows` };
    const next = Object.keys(object).find(
      (name) =>
        /^next/i.test(name) && isPresent(object[name]) && !TOKEN_FIELDS.some(([field]) => field === name),
    );
    if (next !== undefined)
      return { cut: `the body's "${next}" names a next page in a form the suite does not follow` };
  }
  return undefined;
}

function isPresent(value: unknown): boolean {
  return value !== null && value !== undefined && value !== '' && value !== false;
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function withParameter(url: string, name: string, value: string, how: string): NextPage {
  const next = new URL(url);
  next.searchParams.set(name, value);
  return { url: next.toString(), how };
}

/** The object members of a body (`links`, `meta`, `pagination`, `response_metadata`, …). */
function memberObjects(json: JsonObject): JsonObject[] {
  return Object.values(json).filter(isObject);
}

function lastRecordId(objects: readonly JsonObject[]): string | undefined {
  for (const object of objects)
    for (const value of Object.values(object)) {
      if (!Array.isArray(value)) continue;
      const last: unknown = value.at(-1);
      const id = isObject(last) ? last.id : undefined;
      if (typeof id === 'string' && id !== '') return id;
    }
  return undefined;
}

/** The target of the `rel="next"` link of a Link field value (RFC 8288 §3), if there is one. */
export function linkNext(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  for (const match of value.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]*)*)/g)) {
    const params = match[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return match[1];
  }
  return undefined;
}

/** How many records a page holds: the items of its arrays of objects. */
export function recordCount(page: ResponseExchange): number {
  let count = 0;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      if (value.some((item) => item !== null && typeof item === 'object')) count += value.length;
      value.forEach(visit);
    } else if (value !== null && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(jsonBody(page));
  return count;
}

export interface FollowedList {
  /** The answer to the first request, then one per page followed (each a 200). */
  pages: Exchange[];
  /** The first next page the first answer named, if any: what another tenant's key may be tried with. */
  firstNext?: NextPage;
  /** Why the list was not followed to its end, when a bound stopped it. */
  stoppedBy?: string;
  /**
   * The next page the list named that was not served (no answer, or a status other than 200):
   * the list ends there, and the records past it are unknown.
   */
  unserved?: { page: number; url: string; answer: string };
  /** Page `page` named a next page the suite can't or mustn't follow: the list is cut there. */
  cut?: { page: number; form: string };
}

/**
 * GET `url`, then each next page while the answers are 200 and name one, up to `bounds` (pages,
 * records) and never the same URL twice. The first answer is returned whatever it is; a next page
 * that is not served ends the list, said in `unserved`; one that can't be followed, in `cut`.
 */
export async function followPages(
  api: Api,
  url: string,
  options: { headers: Record<string, string>; note?: string },
  bounds: ListBounds = listBounds(),
): Promise<FollowedList> {
  const first = await api.get(url, {
    headers: options.headers,
    ...(options.note ? { note: options.note } : {}),
  });
  const list: FollowedList = { pages: [first] };
  if (first.kind === 'failure' || first.status !== 200) return list;
  const seen = new Set([url]);
  let records = recordCount(first);
  let page: ResponseExchange = first;
  let pageUrl = url;
  for (;;) {
    const next = pageAfter(page, pageUrl);
    if (!next) return list;
    if ('cut' in next) return { ...list, cut: { page: list.pages.length, form: next.cut } };
    list.firstNext ??= next;
    if (seen.has(next.url)) return list;
    if (list.pages.length >= bounds.maxPages)
      return { ...list, stoppedBy: `${bounds.maxPages} pages (--max-list-pages)` };
    if (records >= bounds.maxRecords)
      return { ...list, stoppedBy: `${bounds.maxRecords} records (--max-list-records)` };
    seen.add(next.url);
    const answer = await api.get(next.url, {
      headers: options.headers,
      note: `the next page, named by ${next.how}`,
    });
    list.pages.push(answer);
    if (answer.kind === 'failure' || answer.status !== 200) {
      // What the exchange's own record says of a failure (a front's refusals, advice) is in its
      // evidence; here only what the list lacks.
      const got = answer.kind === 'failure' ? 'no answer of the target' : `a ${answer.status}`;
      return { ...list, unserved: { page: list.pages.length, url: next.url, answer: got } };
    }
    records += recordCount(answer);
    page = answer;
    pageUrl = next.url;
  }
}
