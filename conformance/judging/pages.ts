// A target's list may come in pages: what the suite learns of a tenant's data, and what the rules
// that read a tenant's own list look at, follow them — up to a bound, so that a run stays short
// against a tenant with thousands of records (docs/decisions/0023). The next page is named by
//   - a `Link: <…>; rel="next"` header field (RFC 8288), or
//   - a `next` / `next_url` link in the body (at its top level or in a member object such as
//     `links`), or
//   - a cursor while the body says `has_more`: `next_cursor` or `cursor` (sent back as `cursor`),
//     `next_page_token` or `page_token` (as `page_token`), `starting_after` (as `starting_after`),
//     or, with none of them, the `id` of the last record (`starting_after`, Stripe's convention).
// A next page on another origin is never followed: the key would go to a host it was not given for.
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

/** Cursor fields of a body, and the query parameter each is sent back as. */
const CURSOR_FIELDS: readonly (readonly [string, string])[] = [
  ['next_cursor', 'cursor'],
  ['cursor', 'cursor'],
  ['next_page_token', 'page_token'],
  ['page_token', 'page_token'],
  ['starting_after', 'starting_after'],
];
const LINK_FIELDS = ['next', 'next_url'];

/** The page after `page` (the answer to GET `url`), when it names one on the same origin. */
export function nextPageOf(page: ResponseExchange, url: string): NextPage | undefined {
  const sameOrigin = (candidate: string | undefined, how: string): NextPage | undefined => {
    if (candidate === undefined) return undefined;
    try {
      const next = new URL(candidate, url);
      return next.origin === new URL(url).origin ? { url: next.toString(), how } : undefined;
    } catch {
      return undefined;
    }
  };
  const fromHeader = sameOrigin(linkNext(page.headers.link), 'the Link rel="next" header');
  if (fromHeader) return fromHeader;
  const json = jsonBody(page);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const objects = [json as Record<string, unknown>, ...memberObjects(json as Record<string, unknown>)];
  for (const object of objects)
    for (const field of LINK_FIELDS) {
      const value = object[field];
      const next =
        typeof value === 'string' && value !== ''
          ? sameOrigin(value, `the body's "${field}" link`)
          : undefined;
      if (next) return next;
    }
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

function withParameter(url: string, name: string, value: string, how: string): NextPage {
  const next = new URL(url);
  next.searchParams.set(name, value);
  return { url: next.toString(), how };
}

/** The object members of a body (`links`, `meta`, `pagination`, …). */
function memberObjects(json: Record<string, unknown>): Record<string, unknown>[] {
  return Object.values(json).filter(
    (value): value is Record<string, unknown> =>
      value !== null && typeof value === 'object' && !Array.isArray(value),
  );
}

function lastRecordId(objects: readonly Record<string, unknown>[]): string | undefined {
  for (const object of objects)
    for (const value of Object.values(object)) {
      if (!Array.isArray(value)) continue;
      const last: unknown = value.at(-1);
      const id = last !== null && typeof last === 'object' ? (last as Record<string, unknown>).id : undefined;
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
}

/**
 * GET `url`, then each next page while the answers are 200 and name one, up to `bounds` (pages,
 * records) and never the same URL twice. The first answer is returned whatever it is; a next page
 * that is not served ends the list, said in `unserved`.
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
    const next = nextPageOf(page, pageUrl);
    if (!next) return list;
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
