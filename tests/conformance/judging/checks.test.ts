// The assertions of the rules, without a network: only evidence that the target answered wrongly
// is a ConformanceFailure; no answer is Inconclusive (the rule ends as ERROR), never a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Checks, ConformanceFailure, Inconclusive } from '../../../conformance/judging/checks.ts';
import { startRequest, type Exchange } from '../../../conformance/requests/exchange.ts';
import { KeyNamer } from '../../../conformance/redaction/shown-keys.ts';
import { KEY, answer, bare as check, error, globex, notSent, refused } from './checks-exchanges.ts';

test('no answer is Inconclusive in every check that needs one, never a failure', () => {
  const needAnswer: ((exchange: Exchange) => void)[] = [
    (exchange) => check.response(exchange, 'x'),
    (exchange) => check.served(exchange, 'x'),
    (exchange) => check.status(exchange, [401], 'x'),
    (exchange) => check.header(exchange, 'Cache-Control', /no-store/, 'x'),
    (exchange) => check.noDataOf(exchange, [globex], 'x'),
    (exchange) => check.rejected(exchange, 'x', { noDataOf: [globex] }),
    (exchange) =>
      check.rejected(exchange, 'x', { codes: ['invalid_api_key'], noDataOf: [], allowNoResponse: true }),
  ];
  for (const run of needAnswer) assert.throws(() => run(refused), Inconclusive);
});

test('a refusal is a rejection only where the rule allows it, and never when nothing was sent', () => {
  assert.doesNotThrow(() =>
    check.rejected(refused, 'plain HTTP', { noDataOf: [globex], allowNoResponse: true }),
  );
  assert.throws(
    () => check.rejected(notSent, 'plain HTTP', { noDataOf: [globex], allowNoResponse: true }),
    Inconclusive,
  );
});

test('rejected: a success, a wrong code or the other tenant’s data is a failure', () => {
  assert.doesNotThrow(() =>
    check.rejected(answer(401, error('invalid_api_key')), 'x', {
      codes: ['invalid_api_key'],
      noDataOf: [globex],
    }),
  );
  assert.throws(() => check.rejected(answer(200, { data: [] }), 'x', { noDataOf: [] }), ConformanceFailure);
  assert.throws(
    () =>
      check.rejected(answer(401, error('missing_authorization_header')), 'x', {
        codes: ['invalid_api_key'],
        noDataOf: [],
      }),
    /expected error\.code invalid_api_key, got "missing_authorization_header"/,
  );
  assert.throws(
    () =>
      check.rejected(answer(403, { error: { code: 'x', message: 'Globex Corp' } }), 'x', {
        noDataOf: [globex],
      }),
    /holds data of globex: "Globex Corp"/,
  );
});

test('noDataOf with a baseline fails only on data the extra fields add', () => {
  const leakEverywhere = answer(200, { data: [{ name: 'Globex Corp' }] });
  assert.doesNotThrow(() => check.noDataOf(leakEverywhere, [globex], 'tenant_id', leakEverywhere));
  const clean = answer(200, { data: [{ name: 'Acme' }] });
  assert.throws(() => check.noDataOf(leakEverywhere, [globex], 'tenant_id', clean), /holds data of globex/);
  const more = answer(200, { data: [{ name: 'Globex Corp', email: 'hank@globex.example' }] });
  assert.throws(() => check.noDataOf(more, [globex], 'tenant_id', leakEverywhere), /hank@globex\.example/);
  assert.throws(() => check.noDataOf(leakEverywhere, [globex], 'tenant_id', refused), Inconclusive);
});

test('a failure message and its evidence never hold the key', () => {
  const echoed = answer(401, error(`invalid key ${KEY}`), { 'www-authenticate': `Bearer ${KEY}` });
  try {
    check.fail(`the answer repeats ${KEY}`, echoed);
    assert.fail('fail() must throw');
  } catch (thrown) {
    assert.ok(thrown instanceof ConformanceFailure);
    assert.ok(!JSON.stringify({ message: thrown.message, evidence: thrown.evidence }).includes(KEY));
  }
  assert.throws(
    () => check.noAnswer({ ...refused, error: `reset while sending ${KEY}` }, 'x'),
    (thrown: unknown) => thrown instanceof Inconclusive && !thrown.message.includes(KEY),
  );
});

test('check.each judges every probe after one fails: all failures together, and an ERROR only when none failed', async () => {
  const probes = [
    answer(200, { name: 'Globex Corp' }),
    notSent,
    answer(403, error('https_required')),
    answer(200, {}),
  ];
  const judged: number[] = [];
  const judge = (exchange: Exchange, index: number): void => {
    judged.push(index);
    check.rejected(exchange, `probe ${index}`, { noDataOf: [globex] });
  };
  await assert.rejects(
    check.each(probes.entries(), ([index, exchange]) => judge(exchange, index)),
    (thrown: unknown) => {
      assert.ok(thrown instanceof ConformanceFailure);
      assert.match(thrown.message, /probe 0: the answer holds data of globex/);
      assert.match(thrown.message, /probe 3: expected a rejection \(4xx\), got 200/);
      assert.equal(thrown.evidence.length, 2);
      return true;
    },
  );
  assert.deepEqual(judged, [0, 1, 2, 3], 'every probe was judged');
  await assert.rejects(
    check.each([notSent, answer(403, error('https_required'))], (exchange) => check.rejected(exchange, 'x')),
    Inconclusive,
  );
  await check.each([refused, answer(401, error('invalid_api_key'))], (exchange) =>
    check.rejected(exchange, 'x', { allowNoResponse: true }),
  );
});

test('noDataWithoutKey: a request without Authorization answered with data fails, a leak; with a key it is not its business', () => {
  const keyless = {
    ...answer(200, { name: 'Globex Corp' }),
    request: startRequest('GET', 'https://x/v1/customers', []),
  };
  const keyed = {
    ...keyless,
    request: startRequest('GET', 'https://x/v1/customers', [['Authorization', `Bearer ${KEY}`]]),
  };
  const withGlobex = new Checks(new KeyNamer([]), { other: globex });
  withGlobex.noDataWithoutKey([keyed, answer(401, error('missing_authorization_header')), refused]);
  assert.throws(
    () => withGlobex.noDataWithoutKey([keyed, keyless]),
    (thrown: unknown) =>
      thrown instanceof ConformanceFailure &&
      thrown.leak &&
      /wherever the suite sees it/.test(thrown.message),
  );
});
