// The paging of every list (the API's and the pages'): `limit` (how many, bounded) and `cursor`
// (where the page starts: opaque, the last key of the page before, as the registry wrote it).
// A cursor names its list, so one list's cursor is refused by another; a bad one is the client's
// error, named, never a 500 or a silent first page.
import { deploymentProblem } from '../publish/upload.ts';
import { RequestError } from './respond.ts';

export const PAGE_LIMIT = { default: 50, max: 200 } as const;

/** Each list and the key its pages follow. */
interface Keys {
  /** The deployments, by name. */
  deployments: string;
  /** A deployment's versions, by the id of each version's first run. */
  versions: number;
  /** The audit list, newest first, by entry id. */
  audit: number;
  /** The webhooks, by id. */
  webhooks: number;
  /** A webhook's (or a deployment's) deliveries, newest first, by row id. */
  deliveries: number;
}
export type ListName = keyof Keys;

export interface PageRequest<List extends ListName> {
  after: Keys[List] | undefined;
  limit: number;
}

const MAX_CURSOR_CHARACTERS = 200;

export function cursorOf<List extends ListName>(list: List, key: Keys[List]): string {
  return Buffer.from(JSON.stringify([list, key])).toString('base64url');
}

function keyOf<List extends ListName>(list: List, cursor: string): Keys[List] | undefined {
  if (cursor.length > MAX_CURSOR_CHARACTERS || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || decoded[0] !== list) return undefined;
  const key: unknown = decoded[1];
  if (list !== 'deployments')
    return Number.isSafeInteger(key) && (key as number) > 0 && (key as number) <= 2_147_483_647
      ? (key as Keys[List])
      : undefined;
  return deploymentProblem(key) === undefined ? (key as Keys[List]) : undefined;
}

/**
 * The page a query asks for: `limit` and `cursor` checked, each refused by name. `bounds` are the
 * list's own when they differ (the audit list's, as its command has always taken).
 */
export function pageRequest<List extends ListName>(
  list: List,
  query: URLSearchParams,
  bounds: { default: number; max: number } = PAGE_LIMIT,
): PageRequest<List> {
  const limitText = query.get('limit');
  let limit: number = bounds.default;
  if (limitText !== null) {
    if (!/^[1-9][0-9]{0,3}$/.test(limitText) || Number(limitText) > bounds.max)
      throw new RequestError(
        400,
        'bad_limit',
        `limit must be a whole number from 1 to ${bounds.max} (default ${bounds.default}); got ${JSON.stringify(limitText.slice(0, 20))}.`,
      );
    limit = Number(limitText);
  }
  const cursor = query.get('cursor');
  if (cursor === null) return { after: undefined, limit };
  const after = keyOf(list, cursor);
  if (after === undefined)
    throw new RequestError(
      400,
      'bad_cursor',
      `cursor is not one this registry gave for the ${list} list: start at the first page (no cursor) and follow the next links.`,
    );
  return { after, limit };
}

/** The path of the page after this one (same list, same limit), or undefined on the last page. */
export function nextPath<List extends ListName>(
  path: string,
  list: List,
  request: PageRequest<List>,
  next: Keys[List] | undefined,
): string | undefined {
  if (next === undefined) return undefined;
  const query = new URLSearchParams({ cursor: cursorOf(list, next) });
  if (request.limit !== PAGE_LIMIT.default) query.set('limit', String(request.limit));
  return `${path}?${query.toString()}`;
}

/** The Link header of a page with a next one (RFC 8288), for clients that follow it. */
export function linkHeader(next: string | undefined): Record<string, string> {
  return next === undefined ? {} : { Link: `<${next}>; rel="next"` };
}
