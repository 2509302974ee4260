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

/** What the list of a tenant and environment holds under `list`: short lists, or 300 customers. */
export function customersUnder(
  list: PagedList | PagedListDefect | 'whole',
  tenant: string,
  environment: Environment,
): Customer[] {
  return list === 'whole' || list === 'paged-chunked'
    ? customersOf(tenant, environment)
    : longCustomerList(tenant, environment);
}

/**
 * The page the query (`cursor` or `page`) points at, the first without one; undefined when the
 * cursor or page number is not one this list issued for this tenant and environment.
 */
export function customerPage(
  list: PagedList | PagedListDefect,
  scope: { tenant: string; environment: Environment },
  query: { cursor?: string; page?: string },
): PageAnswer | undefined {
  if (list === 'paged-link' || list === 'paged-link-global-from-page-3')
    return numberedPage(list, scope, query.page);
  const customers = customersUnder(list, scope.tenant, scope.environment);
  const { tenant, environment } = scope;
  const position = query.cursor === undefined ? { tenant, environment, offset: 0 } : positionOf(query.cursor);
  if (!position) return undefined;
  const trusted = list === 'paged-cursor-trusted';
  if (!trusted && (position.tenant !== tenant || position.environment !== environment)) return undefined;
  // The defect: the list is the cursor's, whoever asks on whichever host.
  const listed = trusted ? customersUnder(list, position.tenant, position.environment) : customers;
  if (!Number.isInteger(position.offset) || position.offset < 0 || position.offset > listed.length)
    return undefined;
  const size = list === 'paged-chunked' ? PAGE_SIZE : LONG_PAGE_SIZE;
  const end = position.offset + size;
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
): PageAnswer | undefined {
  const page = pageText === undefined ? 1 : Number(pageText);
  if (pageText !== undefined && !/^[1-9]\d{0,5}$/.test(pageText)) return undefined;
  const own = longCustomerList(scope.tenant, scope.environment);
  const start = (page - 1) * LONG_PAGE_SIZE;
  if (start > own.length) return undefined;
  // The defect: from the third page on the query runs on a global index, without the tenant filter.
  const source = list === 'paged-link-global-from-page-3' && page >= 3 ? globalIndex(scope.environment) : own;
  const customers = source.slice(start, start + LONG_PAGE_SIZE);
  const hasMore = start + LONG_PAGE_SIZE < own.length;
  return {
    body: { customers, has_more: hasMore },
    ...(hasMore ? { link: `</v1/customers?page=${page + 1}>; rel="next"` } : {}),
  };
}

/** Every tenant's customers of an environment, interleaved as created: the index without a tenant filter. */
function globalIndex(environment: Environment): Customer[] {
  const lists = TENANTS.map((tenant) => longCustomerList(tenant, environment));
  const longest = Math.max(...lists.map((customers) => customers.length));
  return Array.from({ length: longest }, (_unused, index) =>
    lists.flatMap((customers) => (index < customers.length ? [customers[index] as Customer] : [])),
  ).flat();
}
