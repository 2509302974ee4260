// The checks of what a client does next (conformance/client-report/history-checks.ts) on
// hand-made histories: pure functions, history in, findings out. Times are what the journal
// records (an answer's, and a later request's, never before it arrived).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JournalEntry } from '../../../schemas/generated/journal.ts';
import { HISTORY_CHECKS } from '../../../conformance/client-report/history-checks.ts';

const START = Date.parse('2026-01-01T10:00:00.000Z');

function at(ms: number, fields: Partial<JournalEntry> = {}): JournalEntry {
  return {
    time: new Date(START + ms).toISOString(),
    transport: 'https',
    protocol: 'h1',
    tenant: 'acme',
    host: 'tenant',
    sni: 'match',
    method: 'GET',
    path: '/v1/customers',
    status: 200,
    authorization: 'bearer',
    key: 'key_a',
    keyRevoked: false,
    contentType: 'missing',
    accept: 'json',
    hasBody: false,
    ...fields,
  };
}

const violations = (rule: keyof typeof HISTORY_CHECKS, entries: JournalEntry[]) =>
  HISTORY_CHECKS[rule](entries).violating.length;

describe('a key revoked while the client runs', () => {
  const revoked = { status: 401, errorCode: 'invalid_api_key', keyRevoked: true };
  test('the request that finds it revoked is not counted; one after it is', () => {
    assert.equal(violations('CLIENT-KEY-NOT-REVOKED', [at(0), at(1, revoked)]), 0);
    assert.equal(violations('CLIENT-KEY-NOT-REVOKED', [at(0), at(1, revoked), at(2, revoked)]), 1);
  });
  test('a key revoked before the client first used it counts from its first request', () => {
    assert.equal(violations('CLIENT-KEY-NOT-REVOKED', [at(0, revoked)]), 1);
  });
  test('not evaluated without a known key', () => {
    assert.equal(HISTORY_CHECKS['CLIENT-KEY-NOT-REVOKED']([at(0, { keyRevoked: undefined })]).applicable, 0);
  });
});

describe('after invalid_api_key', () => {
  const refused = { status: 401, errorCode: 'invalid_api_key' };
  test('one more request with the key is tolerated, a second is a loop; another key is another story', () => {
    assert.equal(violations('CLIENT-STOPS-ON-INVALID-KEY', [at(0, refused), at(1, refused)]), 0);
    assert.equal(
      violations('CLIENT-STOPS-ON-INVALID-KEY', [at(0, refused), at(1, refused), at(2, refused)]),
      1,
    );
    assert.equal(
      violations('CLIENT-STOPS-ON-INVALID-KEY', [
        at(0, refused),
        at(1, { key: 'key_b' }),
        at(2, { key: 'key_b' }),
      ]),
      0,
    );
  });
  test('requests before the first refusal do not count (property)', () => {
    fc.assert(
      fc.property(fc.nat(20), fc.nat(5), (before, after) => {
        const entries = [
          ...Array.from({ length: before }, (_, index) => at(index)),
          at(before, refused),
          ...Array.from({ length: after }, (_, index) => at(before + 1 + index, refused)),
        ];
        assert.equal(violations('CLIENT-STOPS-ON-INVALID-KEY', entries), Math.max(0, after - 1));
      }),
    );
  });
});

describe('after a 429 or 503 with Retry-After', () => {
  const limited = { status: 429, errorCode: 'rate_limited', retryAfter: 2 };
  test('the same request before the wait is over is flagged, after it is not', () => {
    assert.equal(violations('CLIENT-HONOURS-RETRY-AFTER', [at(0, limited), at(5)]), 1);
    assert.equal(violations('CLIENT-HONOURS-RETRY-AFTER', [at(0, limited), at(1995)]), 0);
    assert.equal(violations('CLIENT-HONOURS-RETRY-AFTER', [at(0, limited), at(2000)]), 0);
    assert.equal(violations('CLIENT-HONOURS-RETRY-AFTER', [at(0, { ...limited, status: 503 }), at(1500)]), 1);
  });
  test('another request, or a 429 without Retry-After, is not a retry to judge', () => {
    assert.equal(violations('CLIENT-HONOURS-RETRY-AFTER', [at(0, limited), at(5, { path: '/v1/other' })]), 0);
    assert.equal(HISTORY_CHECKS['CLIENT-HONOURS-RETRY-AFTER']([at(0, { status: 429 }), at(1)]).applicable, 0);
  });
});

describe('a request left without an answer', () => {
  const post = { method: 'POST', hasBody: true, contentType: 'json' as const };
  const cut = { ...post, status: 0, cut: 'reset' as const };
  test('a POST sent again without an Idempotency-Key is flagged', () => {
    assert.equal(violations('CLIENT-NO-UNSAFE-RETRY', [at(0, cut), at(1, post)]), 1);
  });
  test('with an Idempotency-Key on both, after a refused stream, or for a GET, it is not', () => {
    const keyed = { idempotencyKey: true };
    assert.equal(
      violations('CLIENT-NO-UNSAFE-RETRY', [at(0, { ...cut, ...keyed }), at(1, { ...post, ...keyed })]),
      0,
    );
    assert.equal(
      violations('CLIENT-NO-UNSAFE-RETRY', [
        at(0, { ...cut, idempotencyKey: undefined }),
        at(1, { ...post, ...keyed }),
      ]),
      1,
    );
    assert.equal(
      violations('CLIENT-NO-UNSAFE-RETRY', [
        at(0, { ...cut, cut: 'rst-stream', refused: true }),
        at(1, post),
      ]),
      0,
    );
    assert.equal(violations('CLIENT-NO-UNSAFE-RETRY', [at(0, { status: 0, cut: 'reset' }), at(1)]), 0);
  });
});
