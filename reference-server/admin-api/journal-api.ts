// The client journal through the admin API (the client report reads it here):
//   GET    /v1/journal[?tenant=&key_id=&since=&until=]  the entries selected, oldest first
//   DELETE /v1/journal[?tenant=&key_id=&since=&until=]  forget them (e.g. before a client's test run)
// `since` and `until` are RFC 3339 date-times and bound the window inclusively.
import type { Journal, JournalFilter } from '../journal/journal.ts';
import { NO_TENANT } from '../journal/journal.ts';
import { UNKNOWN_KEY } from '../journal/key-naming.ts';
import { adminError, type AdminResponse } from '../http/errors.ts';

const PARAMETERS = ['tenant', 'key_id', 'since', 'until'] as const;
const TENANT = /^[a-z0-9-]{1,63}$/;
const KEY_ID = /^key_[a-z0-9_]{1,60}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

export function handleJournalRequest(
  method: string,
  query: string,
  journal: Journal | undefined,
): AdminResponse {
  if (method !== 'GET' && method !== 'DELETE') {
    return adminError('method_not_allowed', undefined, { Allow: 'GET, DELETE' });
  }
  if (!journal) return adminError('journal_disabled');
  const filter = journalFilter(new URLSearchParams(query));
  if (typeof filter === 'string') return adminError('invalid_request', filter);
  if (method === 'GET') return { status: 200, headers: {}, body: journal.read(filter) };
  return { status: 200, headers: {}, body: { object: 'journal_deletion', deleted: journal.remove(filter) } };
}

/** The filter of a query string, or what is wrong with it (never repeating a value sent). */
export function journalFilter(params: URLSearchParams): JournalFilter | string {
  for (const name of params.keys()) {
    if (!(PARAMETERS as readonly string[]).includes(name)) {
      return `Unknown query parameter; the journal is filtered by ${PARAMETERS.join(', ')}.`;
    }
  }
  const filter: JournalFilter = {};
  const tenant = params.get('tenant');
  if (tenant !== null) {
    if (!TENANT.test(tenant) && tenant !== NO_TENANT) {
      return `The query parameter tenant must be a tenant id (lowercase letters, digits, hyphens) or ${NO_TENANT}.`;
    }
    filter.tenant = tenant;
  }
  const keyId = params.get('key_id');
  if (keyId !== null) {
    if (!KEY_ID.test(keyId) && keyId !== UNKNOWN_KEY) {
      return `The query parameter key_id must be a key id (key_…) or "${UNKNOWN_KEY}".`;
    }
    filter.keyId = keyId;
  }
  for (const [name, field] of [
    ['since', 'sinceMs'],
    ['until', 'untilMs'],
  ] as const) {
    const value = params.get(name);
    if (value === null) continue;
    const time = DATE_TIME.test(value) ? Date.parse(value) : NaN;
    if (Number.isNaN(time)) {
      return `The query parameter ${name} must be an RFC 3339 date-time, e.g. 2025-01-31T09:30:00Z.`;
    }
    filter[field] = time;
  }
  return filter;
}
