// A paged customer list, as many APIs serve one: a page of PAGE_SIZE customers, `has_more`, and a
// `next` link holding an opaque cursor. The page size is smaller than every live tenant's list, so
// the first page never shows all of a tenant's customers. A cursor names the tenant, environment
// and offset it was issued for: it reads nothing of any other tenant.
import type { Customer, Environment } from './directory.ts';

export const PAGE_SIZE = 1;

export interface CustomerPage {
  customers: Customer[];
  has_more: boolean;
  /** The path of the next page, when there is one. */
  next?: string;
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

/**
 * The page `cursor` points at (the first without one), or undefined when the cursor is not one
 * this list issued for this tenant and environment.
 */
export function customerPage(
  customers: readonly Customer[],
  scope: { tenant: string; environment: Environment },
  cursor: string | undefined,
): CustomerPage | undefined {
  const { tenant, environment } = scope;
  const position = cursor === undefined ? { tenant, environment, offset: 0 } : positionOf(cursor);
  if (!position || position.tenant !== scope.tenant || position.environment !== scope.environment)
    return undefined;
  if (!Number.isInteger(position.offset) || position.offset < 0 || position.offset > customers.length)
    return undefined;
  const end = position.offset + PAGE_SIZE;
  const page: CustomerPage = {
    customers: customers.slice(position.offset, end),
    has_more: end < customers.length,
  };
  if (page.has_more) page.next = `/v1/customers?cursor=${cursorOf({ tenant, environment, offset: end })}`;
  return page;
}
