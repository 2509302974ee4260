// The paged customer lists of the implementation, as many APIs serve one:
// - `paged-chunked`: a page of PAGE_SIZE customers, `has_more`, and a `next` link in the body
//   holding an opaque cursor;
// - `paged-link`: pages by number (`?page=N`), the next one named by a `Link: <…>; rel="next"`
//   header field (RFC 8288), as GitHub's API pages;
// - `paged-cursor`: an opaque `next_cursor` in the body while `has_more`, sent back as `?cursor=`.
// A cursor names the tenant, environment and offset it was issued for: it reads nothing of any
// other tenant. Two defects, for defects.test.ts: `paged-link-global-from-page-3` (from the third
// page on, the query runs on a global index of every tenant's customers and forgets the tenant
// filter) and `paged-cursor-trusted` (the cursor's tenant and environment are believed).
import { customersOf, longCustomerList, TENANTS, type Customer, type Environment } from './directory.ts';

export const PAGE_SIZE = 1;
/** Customers a page of `paged-link` and `paged-cursor` holds. */
export const LONG_PAGE_SIZE = 50;

export type PagedList = 'paged-chunked' | 'paged-link' | 'paged-cursor';
export type PagedListDefect = 'paged-link-global-from-page-3' | 'paged-cursor-trusted';

export interface CustomerPage {
  customers: Customer[];
  has_more: boolean;
  /** The path of the next page, when there is one (`paged-chunked`). */
  next?: string;
  /** The cursor of the next page, when there is one (`paged-cursor`). */
  next_cursor?: string;
}

/** A page, and the header fields that go with it; undefined: a cursor or page number this list did not issue. */
export interface PageAnswer {
  body: CustomerPage;
  link?: string;
}

interface Position {
  tenant: string;
  environment: Environment;
  offset: number;
}

function cursorOf(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function positionOf(cursor: string): Position | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Position>;
    if (typeof parsed.tenant !== 'string' || typeof parsed.offset !== 'number') return undefined;
    if (parsed.environment !== 'live' && parsed.environment !== 'test') return undefined;
    return { tenant: parsed.tenant, environment: parsed.environment, offset: parsed.offset };
  } catch {
    return undefined;
  }
}

/** What the list of a tenant and environment holds: its short list, or 300 customers (`long`). */
export function customersUnder(long: boolean, tenant: string, environment: Environment): Customer[] {
  return long ? longCustomerList(tenant, environment) : customersOf(tenant, environment);
}

/** Customers a page holds: PAGE_SIZE of a short list, LONG_PAGE_SIZE of a long one. */
function pageSize(list: PagedList | PagedListDefect, long: boolean): number {
  return list !== 'paged-chunked' && long ? LONG_PAGE_SIZE : PAGE_SIZE;
}

/**
 * The page the query (`cursor` or `page`) points at, the first without one; undefined when the
 * cursor or page number is not one this list issued for this tenant and environment. `long`: the
 * live lists hold 300 customers, 50 a page (else each its short list, one a page).
 */
export function customerPage(
  list: PagedList | PagedListDefect,
  scope: { tenant: string; environment: Environment },
  query: { cursor?: string; page?: string },
  long: boolean,
): PageAnswer | undefined {
  if (list === 'paged-link' || list === 'paged-link-global-from-page-3')
    return numberedPage(list, scope, query.page, long);
  const { tenant, environment } = scope;
  const position = query.cursor === undefined ? { tenant, environment, offset: 0 } : positionOf(query.cursor);
  if (!position) return undefined;
  const trusted = list === 'paged-cursor-trusted';
  if (!trusted && (position.tenant !== tenant || position.environment !== environment)) return undefined;
  // The defect: the list is the cursor's, whoever asks on whichever host.
  const listed = customersUnder(long, position.tenant, position.environment);
  if (!Number.isInteger(position.offset) || position.offset < 0 || position.offset > listed.length)
    return undefined;
  const end = position.offset + pageSize(list, long);
  const body: CustomerPage = { customers: listed.slice(position.offset, end), has_more: end < listed.length };
  if (body.has_more) {
    const cursor = cursorOf({ ...position, offset: end });
    if (list === 'paged-chunked') body.next = `/v1/customers?cursor=${cursor}`;
    else body.next_cursor = cursor;
  }
  return { body };
}

function numberedPage(
  list: 'paged-link' | 'paged-link-global-from-page-3',
  scope: { tenant: string; environment: Environment },
  pageText: string | undefined,
  long: boolean,
): PageAnswer | undefined {
  const page = pageText === undefined ? 1 : Number(pageText);
  if (pageText !== undefined && !/^[1-9]\d{0,5}$/.test(pageText)) return undefined;
  const own = customersUnder(long, scope.tenant, scope.environment);
  const size = pageSize(list, long);
  const start = (page - 1) * size;
  if (start > own.length) return undefined;
  // The defect: from the third page on the query runs on a global index, without the tenant filter.
  const source =
    list === 'paged-link-global-from-page-3' && page >= 3 ? globalIndex(scope.environment, long) : own;
  const customers = source.slice(start, start + size);
  const hasMore = start + size < own.length;
  return {
    body: { customers, has_more: hasMore },
    ...(hasMore ? { link: `</v1/customers?page=${page + 1}>; rel="next"` } : {}),
  };
}

/** Every tenant's customers of an environment, interleaved as created: the index without a tenant filter. */
function globalIndex(environment: Environment, long: boolean): Customer[] {
  const lists = TENANTS.map((tenant) => customersUnder(long, tenant, environment));
  const longest = Math.max(...lists.map((customers) => customers.length));
  return Array.from({ length: longest }, (_unused, index) =>
    lists.flatMap((customers) => (index < customers.length ? [customers[index] as Customer] : [])),
  ).flat();
}
