// The run's checker on hand-made histories: no Playwright run, no network. Each breach of the
// table (conformance/catalog/run-invariants.ts) is shown by one exchange, every exchange that
// must pass passes, and over a space of requests and answers the checker agrees with the rules'
// own assertion (Checks.noDataOf) on whether an answer holds a tenant's data.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BREACHES, type BreachKind } from '../../../conformance/catalog/run-invariants.ts';
import {
  credentialOf,
  judgeExchange,
  judgeRun,
  type KeyRole,
} from '../../../conformance/judging/run-checker.ts';
import { runFactsOf } from '../../../conformance/judging/run-facts.ts';
import {
  ACME,
  ERROR,
  FACTS,
  GLOBEX,
  GLOBEX_LIST,
  SANDBOX,
  key,
  other,
  own,
  recorded,
  type Shape,
} from './run-checker-exchanges.ts';
import { Checks, ConformanceFailure } from '../../../conformance/judging/checks.ts';
import { KeyNamer } from '../../../conformance/redaction/shown-keys.ts';
import type { RecordedExchange } from '../../../conformance/requests/exchange-record.ts';
import type { ResponseExchange } from '../../../conformance/requests/exchange.ts';

const BREACH_CASES: readonly [BreachKind, Shape][] = [
  ['plain-http', { url: 'http://acme.api.localhost:8080/v1/customers', headers: [key('ACME_FULL')] }],
  ['keyless', { headers: [['Cookie', 'session=1']] }],
  ['two-authorization-fields', { headers: [key('ACME_FULL'), ['Authorization', 'Bearer nope']] }],
  [
    'two-authorization-fields-h2',
    { h2: true, headers: [key('ACME_FULL'), ['authorization', 'Bearer nope']] },
  ],
  ['other-scheme', { headers: [['Authorization', 'Basic $(printf %s: $ACME_FULL | base64)']] }],
  ['empty-or-cut-token', { headers: [['Authorization', 'Bearer ']] }],
  ['quoted-key', { headers: [['Authorization', 'Bearer "$ACME_FULL"']] }],
  ['altered-key', { headers: [['Authorization', 'Bearer ${ACME_FULL%?}']] }],
  ['unknown-key', { headers: [['Authorization', 'Bearer sk_live_0000000000000000']] }],
  ['revoked-key', { headers: [key('ACME_REVOKED')] }],
  ['key-without-permission', { headers: [key('ACME_NONE')] }],
  [
    'host-names-two-tenants-h2',
    { h2: true, headers: [['host', 'globex.api.localhost:8443'], key('ACME_FULL')], body: GLOBEX_LIST },
  ],
  [
    'host-names-two-tenants',
    { headers: [['Host', 'globex.api.localhost:8443'], key('ACME_FULL')], body: GLOBEX_LIST },
  ],
  ['unknown-host', { url: 'https://initech.api.localhost:8443/v1/customers', headers: [key('GLOBEX_FULL')] }],
  ['cross-key', { headers: [key('GLOBEX_FULL')] }],
  ['cross-key', { headers: [key('GLOBEX_FULL')], body: GLOBEX_LIST }],
  ['sandbox-key-on-production', { headers: [key('ACME_SANDBOX')] }],
  ['production-key-on-sandbox', { url: `${SANDBOX}/customers`, headers: [key('ACME_FULL')] }],
  ['own-key-other-data', { headers: [key('ACME_FULL')], body: GLOBEX_LIST }],
  [
    'own-key-other-data',
    { headers: [key('ACME_FULL')], body: ERROR, responseHeaders: [['x-tenant', 'Globex Corp']] },
  ],
];

describe('the run’s checker', () => {
  for (const [kind, shape] of BREACH_CASES)
    test(`${kind}: fails ${BREACHES[kind].rule}`, () => {
      const found = judgeExchange(recorded(shape), FACTS);
      assert.equal(found?.kind, kind);
    });

  test('every breach of the table is shown by a case above', () => {
    assert.deepEqual(new Set(BREACH_CASES.map(([kind]) => kind)), new Set(Object.keys(BREACHES)));
  });

  const allowed: [string, Shape][] = [
    ['a valid key served its own data', { headers: [key('ACME_FULL')] }],
    ['the scheme in another letter case, a tab', { headers: [['Authorization', 'bearer\t${ACME_FULL}']] }],
    ['the read-only key', { headers: [key('ACME_RO')] }],
    [
      'the other tenant on its own host',
      { url: `${GLOBEX}/customers`, headers: [key('GLOBEX_FULL')], body: GLOBEX_LIST },
    ],
    ['the sandbox key on the sandbox host', { url: `${SANDBOX}/customers`, headers: [key('ACME_SANDBOX')] }],
    ['a refusal without data', { headers: [key('GLOBEX_FULL')], status: 401, body: ERROR }],
    [
      'a key served its own tenant by the Host of a front routing by Host',
      { headers: [['Host', 'globex.api.localhost:8443'], key('GLOBEX_FULL')], body: GLOBEX_LIST },
    ],
    [
      'an HTTP-level syntax (the key twice): left to its own rule',
      { headers: [['Authorization', 'Bearer $ACME_FULL $ACME_FULL']] },
    ],
  ];
  for (const [what, shape] of allowed)
    test(`no violation: ${what}`, () => assert.equal(judgeExchange(recorded(shape), FACTS), undefined));

  test('no answer, no violation; the sender is named', () => {
    const failed: RecordedExchange = { ...recorded({ headers: [] }), error: 'ECONNRESET' };
    delete failed.response;
    const violations = judgeRun(
      [
        {
          madeBy: 'TENANT-CROSS-KEY-INDISTINGUISHABLE',
          exchange: recorded({ headers: [key('GLOBEX_FULL')] }),
        },
        { madeBy: 'learning', exchange: failed },
      ],
      FACTS,
    );
    assert.deepEqual(
      violations.map((violation) => [violation.sender, violation.breach.rule]),
      [['TENANT-CROSS-KEY-INDISTINGUISHABLE', 'TENANT-CROSS-KEY-REJECTED']],
    );
  });

  test('a variable the run does not know is never taken for a valid key, nor judged', () => {
    const keys = new Map<string, KeyRole>();
    assert.deepEqual(credentialOf(['Bearer $ACME_FULL'], false, keys), { kind: 'unjudged' });
    assert.equal(credentialOf(['Bearer $ACME_FULL'], false, FACTS.keys).kind, 'key');
  });

  test('over any answer, a keyless request breaks an invariant exactly when the rules’ own assertion finds data', () => {
    const namer = new KeyNamer([]);
    const checks = new Checks(namer, { own, other });
    const piece = fc.constantFrom(
      ...own.values,
      ...other.values,
      'customers',
      '"id"',
      'active',
      '{',
      '}',
      ' ',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }),
        fc.array(piece, { maxLength: 3 }),
        fc.integer({ min: 200, max: 599 }),
        (body, header, status) => {
          const bodyText = body.join('');
          const headerValue = header.join('');
          const exchange = recorded({
            headers: [],
            body: bodyText,
            status,
            responseHeaders: [['x-note', headerValue]],
          });
          const live: ResponseExchange = {
            kind: 'response',
            request: {
              id: 'x',
              startedAt: new Date(0),
              method: 'GET',
              url: `${ACME}/customers`,
              headers: [],
            },
            durationMs: 1,
            status,
            headers: { 'content-type': 'application/json', 'x-note': headerValue },
            bodyText,
          };
          let ruleFinds = false;
          try {
            checks.noDataWithoutKey([live]);
          } catch (error) {
            if (!(error instanceof ConformanceFailure)) throw error;
            ruleFinds = true;
          }
          const found = judgeExchange(exchange, FACTS);
          assert.equal(found !== undefined, ruleFinds);
          if (found) assert.equal(found.kind, 'keyless');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("a slip in the target's roles is not judged a breach of the deployment", () => {
  const withRoles = (
    urls: { otherTenantBaseUrl?: string; sandboxBaseUrl?: string },
    credentialVariables: Record<string, string>,
  ) => runFactsOf({ baseUrl: ACME, ...urls, credentialVariables }, { own, other });
  const ownRead = recorded({ headers: [['Authorization', 'Bearer $ACME_FULL']] });

  test("the other tenant's key variable is one of the tenant's own: its own reads pass", () => {
    const facts = withRoles(
      { otherTenantBaseUrl: GLOBEX },
      { fullAccess: 'ACME_FULL', readOnly: 'ACME_RO', otherTenant: 'ACME_FULL' },
    );
    assert.equal(judgeExchange(ownRead, facts), undefined);
    // A key of one role is still judged: the read-only key on globex's host served globex's list.
    const foreign = recorded({
      url: `${GLOBEX}/customers`,
      headers: [['Authorization', 'Bearer $ACME_RO']],
      body: GLOBEX_LIST,
    });
    assert.equal(judgeExchange(foreign, facts)?.kind, 'cross-key');
  });

  test("the sandbox or the other tenant declared on the base URL's host name: that host is unjudged", () => {
    for (const urls of [
      { sandboxBaseUrl: 'https://acme.api.localhost:9443/v1' },
      { otherTenantBaseUrl: 'https://acme.api.localhost:9443/v1' },
    ]) {
      const facts = withRoles(urls, { fullAccess: 'ACME_FULL', sandbox: 'S', otherTenant: 'G' });
      assert.equal(judgeExchange(ownRead, facts), undefined, JSON.stringify(urls));
    }
  });

  test('the probe sharing the sandbox key: the sandbox key is not made a production key', () => {
    const facts = withRoles(
      { sandboxBaseUrl: SANDBOX },
      { fullAccess: 'ACME_FULL', sandbox: 'ACME_SANDBOX', probe: 'ACME_SANDBOX' },
    );
    const sandboxRead = recorded({
      url: `${SANDBOX}/customers`,
      headers: [['Authorization', 'Bearer $ACME_SANDBOX']],
    });
    assert.equal(judgeExchange(sandboxRead, facts), undefined);
  });
});
