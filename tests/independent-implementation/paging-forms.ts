// More ways to page the customer list, as public APIs name their next page, each written here
// without the suite's code (the one page per customer of the short lists, so page 2 exists):
// - `paged-page-token`: Google's `nextPageToken`, sent back as `?pageToken=`, absent on the last page;
// - `paged-starting-after`: Stripe's `has_more` and `?starting_after=<the last record's id>`;
// - `paged-page-after`: JSON:API's cursor pagination, `meta.page.after` sent back as `?page[after]=`;
// - `paged-offset`: `offset`, `limit` and `total`, the next page at `?offset=offset+limit&limit=limit`;
// - `paged-link-absolute`: `Link: <https://{this host}/v1/customers?page=N>; rel="next"`;
// - `paged-link-other-origin`: the next page on another origin (a CDN's, say) — the suite must not
//   follow it with the key, and must not take page 1 for the whole list;
// - `paged-more-unknown`: `hasMore: true` and a `continuation` token sent back as `?continuation=`, a
//   form the suite does not know — a cut list too.
// Every token and cursor names the tenant and environment it was issued for, and counts only on
// their host. `leakFromPage2` (a defect, defects of the pages): every page but the first also holds
// the other tenant's first customer.
import type { Customer, Environment } from './directory.ts';
import { customersOf, TENANTS } from './directory.ts';

export type PagingForm =
  | 'paged-page-token'
  | 'paged-starting-after'
  | 'paged-page-after'
  | 'paged-offset'
  | 'paged-link-absolute'
  | 'paged-link-other-origin'
  | 'paged-more-unknown';

export const PAGING_FORMS: readonly PagingForm[] = [
  'paged-page-token',
  'paged-starting-after',
  'paged-page-after',
  'paged-offset',
  'paged-link-absolute',
  'paged-link-other-origin',
  'paged-more-unknown',
];

/** The host of the other origin `paged-link-other-origin` names (the target maps *.localhost here). */
export const OTHER_ORIGIN_HOST = 'pages-cdn.localhost';

interface Scope {
  tenant: string;
  environment: Environment;
}

export interface FormAnswer {
  body: unknown;
  link?: string;
}

function tokenOf(scope: Scope, offset: number): string {
  return Buffer.from(JSON.stringify([scope.tenant, scope.environment, offset])).toString('base64url');
}

/** The offset a token names, when it was issued for `scope`; undefined for any other text. */
function offsetOf(token: string, scope: Scope): number | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed[0] !== scope.tenant || parsed[1] !== scope.environment)
      return undefined;
    return typeof parsed[2] === 'number' && Number.isSafeInteger(parsed[2]) ? parsed[2] : undefined;
  } catch {
    return undefined;
  }
}

/** Where the query says the page starts, per form; undefined: not a position this list issued. */
function startOf(
  form: PagingForm,
  scope: Scope,
  query: Record<string, string | undefined>,
): number | undefined {
  const own = customersOf(scope.tenant, scope.environment);
  const named = (text: string | undefined) => (text === undefined ? 0 : offsetOf(text, scope));
  switch (form) {
    case 'paged-page-token':
      return named(query.pageToken);
    case 'paged-page-after':
      return named(query['page[after]']);
    case 'paged-more-unknown':
      return named(query.continuation);
    case 'paged-starting-after': {
      if (query.starting_after === undefined) return 0;
      const index = own.findIndex((customer) => customer.id === query.starting_after);
      return index === -1 ? undefined : index + 1;
    }
    case 'paged-offset': {
      const offset = query.offset ?? '0';
      return /^\d{1,4}$/.test(offset) ? Number(offset) : undefined;
    }
    default: {
      const page = query.page ?? '1';
      return /^[1-9]\d{0,3}$/.test(page) ? Number(page) - 1 : undefined;
    }
  }
}

/** The page of `form` the query asks for, as `origin` (this host) serves it. */
export function formPage(
  form: PagingForm,
  scope: Scope,
  query: Record<string, string | undefined>,
  origin: string,
  leakFromPage2: boolean,
): FormAnswer | undefined {
  const own = customersOf(scope.tenant, scope.environment);
  const start = startOf(form, scope, query);
  if (start === undefined || start > own.length) return undefined;
  const other = TENANTS.find((tenant) => tenant !== scope.tenant) ?? scope.tenant;
  // The defect: past the first page, the other tenant's first customer too.
  const leaked = leakFromPage2 && start > 0 ? customersOf(other, scope.environment).slice(0, 1) : [];
  const customers: Customer[] = [...own.slice(start, start + 1), ...leaked];
  const more = start + 1 < own.length;
  const token = tokenOf(scope, start + 1);
  switch (form) {
    case 'paged-page-token':
      return { body: { customers, ...(more ? { nextPageToken: token } : {}) } };
    case 'paged-starting-after':
      return { body: { object: 'list', url: '/v1/customers', data: customers, has_more: more } };
    case 'paged-page-after':
      return {
        body: {
          data: customers.map(({ id, ...attributes }) => ({ type: 'customers', id, attributes })),
          meta: { page: { after: more ? token : null } },
        },
      };
    case 'paged-offset':
      return { body: { items: customers, offset: start, limit: 1, total: own.length } };
    case 'paged-more-unknown':
      return { body: { customers, hasMore: more, ...(more ? { continuation: token } : {}) } };
    case 'paged-link-absolute':
    case 'paged-link-other-origin': {
      const host =
        form === 'paged-link-absolute' ? origin : `https://${OTHER_ORIGIN_HOST}:${new URL(origin).port}`;
      return {
        body: { customers },
        ...(more ? { link: `<${host}/v1/customers?page=${start + 2}>; rel="next"` } : {}),
      };
    }
  }
}
