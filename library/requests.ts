// Queries and assertions over the mock's journal, as a client's test reads them: which requests
// the client sent (`mock.requests({ … })`), and `expectRequests(mock, { … }).toHaveCount(2)`,
// `.toAllUse({ keyId })`, `.toHaveNone({ header: 'x-tenant-id' })`. A failed assertion throws
// node:assert's AssertionError — what node:test, Vitest and Jest report as a failure — and its
// message lists the requests that did match, keys by id (the journal never holds a key's value).
// `journalMatchers` are the same checks for Playwright Test's `expect.extend`.
import { AssertionError } from 'node:assert';
import type { JournalEntry } from '../schemas/generated/journal.ts';
import { TENANT_HEADER } from '../reference-server/journal/header-scan.ts';

/** Which requests of the journal: every field given must match. */
export interface RequestQuery {
  tenant?: string;
  environment?: 'production' | 'sandbox';
  /** The key's id (`key_acme_prod_read`), or `unknown key`. */
  keyId?: string;
  method?: string;
  /** The path without its query, e.g. `/v1/customers`. */
  path?: string;
  /** `h1` (HTTP/1.x) or `h2`. */
  protocol?: 'h1' | 'h2';
  status?: number;
  /** The name of the behaviour that answered it. */
  behaviour?: string;
  /** Only requests from this time on: a Date, epoch milliseconds or an RFC 3339 string. */
  since?: Date | number | string;
}

/** What every request matched must share (`toAllUse`). */
export type RequestTraits = Omit<RequestQuery, 'since'>;

/** Something the journal records a request never carried: a header, or a trait. */
export interface Absence extends RequestTraits {
  /**
   * A header field the journal records: `authorization`, `user-agent`, `content-type`, `accept`,
   * `idempotency-key`, or a tenant id header (`x-tenant-id`, `company-id`, …).
   */
  header?: string;
}

/** What `expectRequests` needs of the mock: its typed query. */
export interface RequestSource {
  requests(query?: RequestQuery): Promise<JournalEntry[]>;
}

const RECORDED_HEADERS = ['authorization', 'user-agent', 'content-type', 'accept', 'idempotency-key'];
const MAX_LISTED = 10;

/** The entries of `entries` that `query` selects, oldest first. */
export function selectRequests(entries: readonly JournalEntry[], query: RequestQuery = {}): JournalEntry[] {
  const since = query.since === undefined ? undefined : new Date(query.since).getTime();
  if (since !== undefined && Number.isNaN(since))
    throw new TypeError('requests({ since }): give a Date, epoch milliseconds or an RFC 3339 date-time.');
  return entries.filter(
    (entry) =>
      entry.transport !== 'tls' &&
      hasTraits(entry, query) &&
      (since === undefined || Date.parse(entry.time) >= since),
  );
}

function hasTraits(entry: JournalEntry, traits: RequestTraits): boolean {
  return (
    (traits.tenant === undefined || entry.tenant === traits.tenant) &&
    (traits.environment === undefined || entry.environment === traits.environment) &&
    (traits.keyId === undefined || entry.key === traits.keyId) &&
    (traits.method === undefined || entry.method === traits.method) &&
    (traits.path === undefined || entry.path === traits.path) &&
    (traits.protocol === undefined || entry.protocol === traits.protocol) &&
    (traits.status === undefined || entry.status === traits.status) &&
    (traits.behaviour === undefined || entry.behaviour === traits.behaviour)
  );
}

/** Whether the journal says the request carried the header `name`. */
function carriesHeader(entry: JournalEntry, name: string): boolean {
  switch (name) {
    case 'authorization':
      return entry.authorization !== 'missing' && entry.authorization !== 'not-applicable';
    case 'user-agent':
      return entry.userAgent !== undefined;
    case 'content-type':
      return entry.contentType !== 'missing';
    case 'accept':
      return entry.accept !== 'missing';
    case 'idempotency-key':
      return entry.idempotencyKey === true;
    default:
      return (entry.tenantFields ?? []).some((field) => field.toLowerCase() === `header:${name}`);
  }
}

function checkedHeader(header: string): string {
  const name = header.toLowerCase();
  if (RECORDED_HEADERS.includes(name) || TENANT_HEADER.test(name)) return name;
  throw new TypeError(
    `toHaveNone({ header: '${header}' }): the journal does not record that header. It records ${RECORDED_HEADERS.join(', ')} and tenant id headers (x-tenant-id, company-id, organization-id, …).`,
  );
}

/** One line per request, keys by id: what a failure message shows. */
export function describeRequests(entries: readonly JournalEntry[]): string {
  if (entries.length === 0) return '  (none)';
  const lines = entries.slice(0, MAX_LISTED).map((entry) => {
    const answer =
      entry.cut !== undefined
        ? `cut (${entry.cut})`
        : `${entry.status ?? '?'}${entry.errorCode === undefined ? '' : ` ${entry.errorCode}`}`;
    const parts = [
      entry.time,
      `${entry.method ?? '?'} ${entry.tenant ?? '(no tenant)'}${entry.environment === 'sandbox' ? ' (sandbox)' : ''} ${entry.path ?? ''}`,
      `→ ${answer}`,
      `key ${entry.key ?? '(none)'}${entry.keyFingerprint === undefined ? '' : ` ${entry.keyFingerprint}`}`,
      entry.protocol ?? '',
      entry.userAgent === undefined ? '' : `UA ${entry.userAgent}`,
      entry.behaviour === undefined ? '' : `behaviour "${entry.behaviour}"`,
    ];
    return `  ${parts.filter((part) => part !== '').join(' | ')}`;
  });
  if (entries.length > MAX_LISTED) lines.push(`  … and ${entries.length - MAX_LISTED} more`);
  return lines.join('\n');
}

function describeQuery(query: object): string {
  return JSON.stringify(query, (_key, value: unknown) =>
    value instanceof Date ? value.toISOString() : value,
  );
}

/** A check over the requests a query selects: undefined when it holds, else the failure's first line. */
type Check = (matched: readonly JournalEntry[]) => string | undefined;

function countCheck(expected: number): Check {
  return (matched) =>
    matched.length === expected ? undefined : `expected ${expected} requests, found ${matched.length}`;
}

function allUseCheck(traits: RequestTraits): Check {
  return (matched) => {
    const others = matched.filter((entry) => !hasTraits(entry, traits));
    if (matched.length === 0) return `expected requests that all use ${describeQuery(traits)}, found none`;
    return others.length === 0
      ? undefined
      : `expected every request to use ${describeQuery(traits)}; ${others.length} of ${matched.length} do not:\n${describeRequests(others)}`;
  };
}

function noneCheck(absence: Absence): Check {
  const { header, ...traits } = absence;
  const name = header === undefined ? undefined : checkedHeader(header);
  return (matched) => {
    const offending = matched.filter(
      (entry) => (name === undefined || carriesHeader(entry, name)) && hasTraits(entry, traits),
    );
    return offending.length === 0
      ? undefined
      : `expected no request with ${describeQuery(absence)}; found ${offending.length}:\n${describeRequests(offending)}`;
  };
}

async function runCheck(source: RequestSource, query: RequestQuery, check: Check) {
  const matched = await source.requests(query);
  const failure = check(matched);
  const message =
    failure === undefined
      ? `the requests matching ${describeQuery(query)} hold the expectation`
      : `${failure}.\nRequests matching ${describeQuery(query)}:\n${describeRequests(matched)}`;
  return { pass: failure === undefined, message };
}

export interface RequestExpectation {
  /** Exactly `count` requests match the query. */
  toHaveCount(count: number): Promise<void>;
  /** At least one request matches, and every one has these traits (e.g. `{ keyId }`). */
  toAllUse(traits: RequestTraits): Promise<void>;
  /** No request that matches carries `header`, or has the traits given. */
  toHaveNone(absence: Absence): Promise<void>;
}

/**
 * Assertions over the requests of the journal that `query` selects; each throws an AssertionError
 * naming the requests that did match. Use in node:test, Vitest, Jest: `await expectRequests(…)…`.
 */
export function expectRequests(source: RequestSource, query: RequestQuery = {}): RequestExpectation {
  const assertThat = async (check: Check): Promise<void> => {
    const { pass, message } = await runCheck(source, query, check);
    if (!pass) throw new AssertionError({ message });
  };
  return {
    toHaveCount: async (count) => assertThat(countCheck(count)),
    toAllUse: async (traits) => assertThat(allUseCheck(traits)),
    toHaveNone: async (absence) => assertThat(noneCheck(absence)),
  };
}

/**
 * The matchers `journalMatchers` adds, as a framework's `expect` declares them, for Vitest's and
 * Jest's declaration merging (Playwright Test infers them from `expect.extend`): `R` is what a
 * matcher's call returns there, a promise to await.
 */
export interface JournalMatchers<R = Promise<void>> {
  toHaveRequestCount(count: number, query?: RequestQuery): R;
  toHaveRequestsAllUsing(traits: RequestTraits, query?: RequestQuery): R;
  toHaveNoRequest(absence: Absence, query?: RequestQuery): R;
}

/** The result Playwright Test's `expect.extend` matchers return. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/**
 * The same checks as matchers for Playwright Test, Vitest and Jest: `expect.extend(journalMatchers)`, then
 * `await expect(mock).toHaveRequestCount(2, { keyId })`, `.toHaveRequestsAllUsing({ keyId }, query)`,
 * `.toHaveNoRequest({ header: 'x-tenant-id' }, query)`; `.not` works as for any matcher.
 */
export const journalMatchers = {
  async toHaveRequestCount(
    mock: RequestSource,
    count: number,
    query: RequestQuery = {},
  ): Promise<MatcherResult> {
    const { pass, message } = await runCheck(mock, query, countCheck(count));
    return { pass, message: () => message };
  },
  async toHaveRequestsAllUsing(
    mock: RequestSource,
    traits: RequestTraits,
    query: RequestQuery = {},
  ): Promise<MatcherResult> {
    const { pass, message } = await runCheck(mock, query, allUseCheck(traits));
    return { pass, message: () => message };
  },
  async toHaveNoRequest(
    mock: RequestSource,
    absence: Absence,
    query: RequestQuery = {},
  ): Promise<MatcherResult> {
    const { pass, message } = await runCheck(mock, query, noneCheck(absence));
    return { pass, message: () => message };
  },
};
