// The journal's query and assertions (library/requests.ts), on hand-made journal entries: what each
// selects, that each assertion fails when it should, and that a failure names the requests that
// matched, keys by id. The mock's own `requests()` is the same function over its journal
// (tests/library/mock-behaviours.test.ts reads it through a running mock).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AssertionError } from 'node:assert';
import fc from 'fast-check';
import type { JournalEntry } from '../../schemas/generated/journal.ts';
import {
  expectRequests,
  journalMatchers,
  selectRequests,
  type RequestQuery,
} from '../../library/requests.ts';

function entry(fields: Partial<JournalEntry>): JournalEntry {
  return {
    time: '2026-01-01T10:00:00.000Z',
    transport: 'https',
    protocol: 'h1',
    tenant: 'acme',
    environment: 'production',
    host: 'tenant',
    sni: 'match',
    method: 'GET',
    path: '/v1/customers',
    status: 200,
    authorization: 'bearer',
    key: 'key_acme_prod_read',
    contentType: 'missing',
    accept: 'json',
    hasBody: false,
    ...fields,
  };
}

const JOURNAL: JournalEntry[] = [
  entry({ time: '2026-01-01T10:00:00.000Z' }),
  entry({ time: '2026-01-01T10:00:01.000Z', protocol: 'h2', key: 'key_acme_prod_full' }),
  entry({
    time: '2026-01-01T10:00:02.000Z',
    tenant: 'globex',
    tenantFields: ['header:x-tenant-id'],
    status: 429,
    behaviour: 'error 429 rate_limited',
  }),
];

const source = (entries: JournalEntry[]) => ({
  requests: (query?: RequestQuery) => Promise.resolve(selectRequests(entries, query)),
});

describe('the journal query', () => {
  test('each field selects by itself; since takes a Date, milliseconds or RFC 3339', () => {
    assert.equal(selectRequests(JOURNAL, { tenant: 'acme' }).length, 2);
    assert.equal(selectRequests(JOURNAL, { keyId: 'key_acme_prod_full' }).length, 1);
    assert.equal(selectRequests(JOURNAL, { protocol: 'h2' }).length, 1);
    assert.equal(selectRequests(JOURNAL, { status: 429, behaviour: 'error 429 rate_limited' }).length, 1);
    assert.equal(selectRequests(JOURNAL, { method: 'POST' }).length, 0);
    assert.equal(selectRequests(JOURNAL, { path: '/v1/customers' }).length, 3);
    for (const since of [
      new Date('2026-01-01T10:00:01Z'),
      Date.parse('2026-01-01T10:00:01Z'),
      '2026-01-01T10:00:01Z',
    ])
      assert.equal(selectRequests(JOURNAL, { since }).length, 2);
    assert.throws(() => selectRequests(JOURNAL, { since: 'yesterday' }), /RFC 3339/);
  });

  test('a query selects exactly the entries that have every field it gives (property)', () => {
    const arbitraryEntry = fc
      .record({
        tenant: fc.constantFrom('acme', 'globex'),
        key: fc.constantFrom('key_a', 'key_b'),
        protocol: fc.constantFrom('h1' as const, 'h2' as const),
      })
      .map((fields) => entry(fields));
    fc.assert(
      fc.property(
        fc.array(arbitraryEntry),
        fc.constantFrom('acme', 'globex'),
        fc.constantFrom('key_a', 'key_b'),
        (entries, tenant, keyId) => {
          const selected = selectRequests(entries, { tenant, keyId });
          assert.equal(selected.length, entries.filter((e) => e.tenant === tenant && e.key === keyId).length);
        },
      ),
    );
  });
});

describe('the assertions', () => {
  test('toHaveCount, toAllUse and toHaveNone pass when they hold', async () => {
    const mock = source(JOURNAL);
    await expectRequests(mock, { tenant: 'acme' }).toHaveCount(2);
    await expectRequests(mock, { protocol: 'h1' }).toAllUse({ keyId: 'key_acme_prod_read' });
    await expectRequests(mock, { tenant: 'acme' }).toHaveNone({ header: 'X-Tenant-Id' });
  });

  test('a failure is an AssertionError listing the requests that matched, by key id', async () => {
    const mock = source(JOURNAL);
    const failure = await expectRequests(mock, { tenant: 'acme' })
      .toHaveCount(3)
      .then(
        () => assert.fail('toHaveCount(3) passed over 2 requests'),
        (error: unknown) => error,
      );
    assert.ok(failure instanceof AssertionError);
    assert.match(failure.message, /expected 3 requests, found 2/);
    assert.match(failure.message, /key key_acme_prod_read/);
    assert.match(failure.message, /key key_acme_prod_full/);
    await assert.rejects(
      expectRequests(mock).toAllUse({ keyId: 'key_acme_prod_read' }),
      /1 of 3 do not:\n.*key_acme_prod_full/,
    );
    await assert.rejects(expectRequests(mock).toHaveNone({ header: 'x-tenant-id' }), /found 1:\n.*globex/);
    await assert.rejects(expectRequests(source([])).toAllUse({ keyId: 'key_a' }), /found none/);
  });

  test('a header the journal does not record is a clear error, not a pass', async () => {
    await assert.rejects(
      expectRequests(source(JOURNAL)).toHaveNone({ header: 'x-request-id' }),
      /does not record that header/,
    );
  });

  test('the Playwright matchers give the same verdicts and messages', async () => {
    const mock = source(JOURNAL);
    assert.equal((await journalMatchers.toHaveRequestCount(mock, 2, { tenant: 'acme' })).pass, true);
    const failed = await journalMatchers.toHaveNoRequest(mock, { header: 'x-tenant-id' });
    assert.equal(failed.pass, false);
    assert.match(failed.message(), /globex/);
    assert.equal((await journalMatchers.toHaveRequestsAllUsing(mock, { tenant: 'acme' })).pass, false);
  });
});
