// A 304 Not Modified to a conditional request (If-None-Match, If-Modified-Since) confirms the
// client's stored copy of the host's tenant's answer: data in effect. Hand-made exchanges, no
// network: the run's checker fails the MUST the request breaks (no key → AUTH-MISSING-HEADER,
// another tenant's key → TENANT-CROSS-KEY-REJECTED), a valid key's 304 is no breach, and over a
// space of statuses, validators and credentials the checker and the rules' own assertion
// (Checks.rejected) agree on which answers are a leak.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { confirmedCopy } from '../../../conformance/judging/answer-data.ts';
import { judgeExchange, judgeRun } from '../../../conformance/judging/run-checker.ts';
import { runFactsOf } from '../../../conformance/judging/run-facts.ts';
import { Checks, ConformanceFailure } from '../../../conformance/judging/checks.ts';
import { KeyNamer } from '../../../conformance/redaction/shown-keys.ts';
import type { RecordedExchange } from '../../../conformance/requests/exchange-record.ts';
import type { ResponseExchange } from '../../../conformance/requests/exchange.ts';
import type { TenantValues } from '../../../conformance/judging/tenant-knowledge.ts';
import { describeViolation } from '../../../conformance/run/run-judgement.ts';

const ACME = 'https://acme.api.localhost:8443/v1';
const GLOBEX = 'https://globex.api.localhost:8443/v1';
const own: TenantValues = { label: 'acme', values: new Set(['cus_acme_000001']) };
const other: TenantValues = { label: 'globex', values: new Set(['cus_globex_000001']) };
const FACTS = runFactsOf(
  {
    baseUrl: ACME,
    otherTenantBaseUrl: GLOBEX,
    credentialVariables: { fullAccess: 'ACME_FULL', otherTenant: 'GLOBEX_FULL' },
  },
  { own, other },
);

function exchange(status: number, headers: [string, string][], url = `${ACME}/customers`): RecordedExchange {
  return {
    id: 'x-1',
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    request: { method: 'GET', url, headers: headers.map(([name, value]) => ({ name, value })) },
    response: { status, headers: [{ name: 'etag', value: '"v1"' }], body: '' },
  };
}

const INM: [string, string] = ['If-None-Match', '"v1"'];
const IMS: [string, string] = ['If-Modified-Since', 'Sat, 28 Nov 2026 12:00:00 GMT'];
const key = (variable: string): [string, string] => ['Authorization', `Bearer $${variable}`];

describe('a 304 to a conditional request is the host’s tenant’s data in effect', () => {
  test('no key, If-None-Match, 304: AUTH-MISSING-HEADER, and the message says what it confirmed', () => {
    const [violation] = judgeRun([{ madeBy: 'SOME-ADVISORY', exchange: exchange(304, [INM]) }], FACTS);
    assert.equal(violation?.breach.rule, 'AUTH-MISSING-HEADER');
    assert.equal(violation.confirmed, 'If-None-Match: "v1"');
    assert.match(
      describeViolation(violation),
      /304 Not Modified to If-None-Match: "v1": it confirms .* acme/,
    );
  });

  test("another tenant's key, If-Modified-Since, 304: TENANT-CROSS-KEY-REJECTED", () => {
    assert.equal(judgeExchange(exchange(304, [key('GLOBEX_FULL'), IMS]), FACTS)?.kind, 'cross-key');
  });

  test('a valid key’s 304 on its own host, a 304 to no conditional request, a 401: no violation', () => {
    assert.equal(judgeExchange(exchange(304, [key('ACME_FULL'), INM]), FACTS), undefined);
    assert.equal(
      judgeExchange(exchange(304, [key('GLOBEX_FULL'), INM], `${GLOBEX}/customers`), FACTS),
      undefined,
    );
    assert.equal(judgeExchange(exchange(304, []), FACTS), undefined);
    assert.equal(judgeExchange(exchange(401, [INM]), FACTS), undefined);
  });

  test('over statuses, validators and credentials, the checker and check.rejected agree', () => {
    const checks = new Checks(new KeyNamer([]), { own, other });
    fc.assert(
      fc.property(
        fc.constantFrom(200, 304, 401, 403, 412),
        fc.subarray([INM, IMS, ['If-Match', '"v1"'] as [string, string]]),
        fc.constantFrom<[string, string][]>([], [key('GLOBEX_FULL')]),
        (status, validators, credential) => {
          const headers = [...credential, ...validators];
          const live: ResponseExchange = {
            kind: 'response',
            request: { id: 'x', startedAt: new Date(0), method: 'GET', url: `${ACME}/customers`, headers },
            durationMs: 1,
            status,
            headers: { etag: '"v1"' },
            bodyText: '',
          };
          let leak = false;
          try {
            checks.rejected(live, 'probe');
          } catch (error) {
            if (!(error instanceof ConformanceFailure)) throw error;
            leak = error.leak;
          }
          const confirms = status === 304 && validators.some(([name]) => name !== 'If-Match');
          assert.equal(confirmedCopy(status, headers) !== undefined, confirms);
          assert.equal(leak, confirms);
          assert.equal(judgeExchange(exchange(status, headers), FACTS) !== undefined, confirms);
        },
      ),
    );
  });
});
