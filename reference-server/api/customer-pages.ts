// Paging of GET /v1/customers, when the server is started with a page size (`--page-size`,
// `ReferenceServerOptions.customersPageSize`); without one, every customer in one answer, as ever.
// A page holds at most that many customers, `has_more` says whether more follow, and the answer's
// `Link: <…?cursor=…>; rel="next"` (RFC 8288) points at the next page. The cursor names the tenant,
// environment and offset it was issued for; the server serves it only on that tenant's and
// environment's host (the `cursorPosition` step), and refuses any other as a bad request.
import type { IncomingMessage } from 'node:http';
import type { Environment } from '../http/hosts.ts';
import type { ApiHost } from '../http/hosts.ts';

/** Where a cursor points: the list it was issued for and the offset of the next page. */
export interface ListPosition {
  tenant: string;
  environment: Environment;
  offset: number;
}

/** The largest page size the server accepts. */
export const MAX_PAGE_SIZE = 1000;

export function cursorOf(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.tenant, position.environment, position.offset])).toString(
    'base64url',
  );
}

/** The position a cursor names, whoever it was issued for; undefined for text that is not a cursor. */
export function readCursor(cursor: string): ListPosition | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 3) return undefined;
    const [tenant, environment, offset] = parsed as unknown[];
    if (typeof tenant !== 'string' || typeof offset !== 'number' || !Number.isSafeInteger(offset))
      return undefined;
    if (environment !== 'production' && environment !== 'sandbox') return undefined;
    return offset < 0 ? undefined : { tenant, environment, offset };
  } catch {
    return undefined;
  }
}

/** The correct step: a cursor counts only on the host of the tenant and environment it was issued for. */
export function cursorOnItsHost(cursor: string, host: ApiHost): ListPosition | undefined {
  const position = readCursor(cursor);
  return position && position.tenant === host.tenant && position.environment === host.environment
    ? position
    : undefined;
}

/** The `cursor` query parameter of a request, if it has one. */
export function cursorParameter(req: IncomingMessage): string | undefined {
  const target = req.url ?? '/';
  const query = target.indexOf('?');
  if (query === -1) return undefined;
  return new URLSearchParams(target.slice(query + 1)).get('cursor') ?? undefined;
}
