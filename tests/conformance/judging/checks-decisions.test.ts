// Each decision of the assertions (conformance/judging/checks.ts) on hand-made exchanges: the
// evidence and the words a failure carries, when a failure is a leak, which answer is served,
// whose data an answer holds. A whole-suite run shows them only for the faults it meets; here
// every branch is pinned down (StrykerJS: npm run mutation:judging). Rejections: checks-rejections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Inconclusive } from '../../../conformance/judging/checks.ts';
import { startRequest } from '../../../conformance/requests/exchange.ts';
import {
  KEY,
  acme,
  globex,
  answer,
  bare,
  check,
  error,
  failure,
  refused,
  signalled,
  thrown,
  transient,
} from './checks-exchanges.ts';

test('evidence of an answer: the request as sent (keys named), the relevant headers, the code, a body excerpt', () => {
  const posted = startRequest('POST', 'https://acme.api.example.com/v1/customers', [['X-Key', KEY]], {
    body: `{"key":"${KEY}"}`,
    note: 'Host: globex',
    protocol: 'h2',
  });
  const exchange = answer(
    401,
    { error: { code: 'invalid_api_key', message: 'x'.repeat(400) } },
    {
      'www-authenticate': `Bearer ${KEY}`,
      'cache-control': 'no-store',
      vary: 'Authorization',
      'strict-transport-security': 'max-age=1',
      location: '/v1',
      connection: 'close',
      'x-request-id': 'not relevant',
    },
    {
      request: posted,
      attempts: [
        { id: 'a1', status: 503, retriedAfterMs: 1.6 },
        { id: 'a2', signal: 'GOAWAY NO_ERROR', retriedAfterMs: 2.4 },
      ],
    },
  );
  const evidence = check.evidence(exchange);
  assert.deepEqual(evidence, {
    method: 'POST',
    url: 'https://acme.api.example.com/v1/customers',
    note: 'Host: globex',
    requestHeaders: [{ name: 'X-Key', value: '$FULL_ACCESS_KEY' }],
    requestBody: '{"key":"$FULL_ACCESS_KEY"}',
    exchange: posted.id,
    protocol: 'HTTP/2',
    attempts: [
      { exchange: 'a1', status: 503, retriedAfterMs: 2 },
      { exchange: 'a2', signal: 'GOAWAY NO_ERROR', retriedAfterMs: 2 },
    ],
    status: 401,
    errorCode: 'invalid_api_key',
    headers: {
      'content-type': 'application/json',
      'www-authenticate': 'Bearer $FULL_ACCESS_KEY',
      'cache-control': 'no-store',
      vary: 'Authorization',
      'strict-transport-security': 'max-age=1',
      location: '/v1',
      connection: 'close',
    },
    bodyExcerpt: exchange.bodyText.slice(0, 300),
  });
  assert.equal(evidence.bodyExcerpt?.length, 300);
});

test('evidence of a plain request: no optional field; of a failure: the failure, no status', () => {
  const plain = check.evidence(answer(200, { data: [] }, { 'content-type': 'text/plain' }));
  assert.deepEqual(Object.keys(plain).sort(), [
    'bodyExcerpt',
    'exchange',
    'headers',
    'method',
    'requestHeaders',
    'status',
    'url',
  ]);
  assert.deepEqual(plain.headers, { 'content-type': 'text/plain' });
  const failed = check.evidence({ ...refused, error: `reset after ${KEY}` });
  assert.equal(failed.failure, 'reset after $FULL_ACCESS_KEY');
  assert.equal(failed.status, undefined);
  assert.equal(failed.bodyExcerpt, undefined);
  assert.equal(check.evidence({ ...refused, error: '' }).failure, '');
});

test('fail is a failure, not a leak; leak is a leak; both with the evidence of each exchange, keys named', () => {
  const one = answer(200, {});
  const two = answer(403, error('x'));
  const failed = failure(() => check.fail(`saw ${KEY}`, one, two));
  assert.equal(failed.message, 'saw $FULL_ACCESS_KEY');
  assert.equal(failed.leak, false);
  assert.deepEqual(
    failed.evidence.map((evidence) => evidence.status),
    [200, 403],
  );
  const leaked = failure(() => check.leak(`saw ${KEY}`, one));
  assert.equal(leaked.message, 'saw $FULL_ACCESS_KEY');
  assert.equal(leaked.leak, true);
  assert.equal(leaked.evidence.length, 1);
  assert.equal(leaked.name, 'ConformanceFailure');
  assert.equal(new Inconclusive('x').name, 'Inconclusive');
});

test('describe: the request line, its answer and code, the retries it took, a switch of protocol', () => {
  const line = 'GET https://acme.api.example.com/v1/customers';
  assert.equal(check.describe(answer(401, error('invalid_api_key'))), `${line} → 401 invalid_api_key`);
  assert.equal(check.describe(answer(200, {})), `${line} → 200`);
  assert.equal(
    check.describe(
      answer(
        200,
        {},
        {},
        {
          attempts: [
            { id: 'a', status: 503, retriedAfterMs: 1 },
            { id: 'b', signal: 'GOAWAY NO_ERROR', retriedAfterMs: 1 },
          ],
        },
      ),
    ),
    `${line} → 200 (after 503, GOAWAY NO_ERROR, each retried)`,
  );
  assert.equal(check.describe(answer(200, {}, {}, { attempts: [] })), `${line} → 200`);
  assert.equal(
    check.describe(answer(200, {}, {}, { switchedProtocols: '101 to h2c' })),
    `${line} → 101 to h2c, then 200`,
  );
  assert.equal(check.describe(refused), `${line} → no response: ECONNREFUSED`);
  assert.equal(
    check.describe({ ...refused, switchedProtocols: '101 to h2c' }),
    `${line} → 101 to h2c, then no response: ECONNREFUSED`,
  );
  assert.equal(check.describe(transient), `${line} → every try answered 503`);
  assert.equal(check.describe(signalled), `${line} → GOAWAY`);
});

test('no answer: an ERROR that says whether a front answered or nothing did', () => {
  const none = thrown(() => check.response(refused, 'the probe'));
  assert.ok(none instanceof Inconclusive);
  assert.match(none.message, /^the probe: no HTTP answer, so the rule could not be checked\. GET /);
  for (const front of [transient, signalled]) {
    const caught = thrown(() => check.noAnswer(front, 'the probe'));
    assert.ok(caught instanceof Inconclusive);
    assert.match(
      caught.message,
      /^the probe: only transient answers \(a front, not the target, answered\), so/,
    );
  }
  const ok = answer(204, '');
  assert.equal(check.response(ok, 'x'), ok);
});

test('served: a 200 with a JSON content type and a JSON body, and nothing else', () => {
  const good = answer(200, { data: [] }, { 'content-type': 'application/json; charset=utf-8' });
  assert.equal(check.served(good, 'list'), good);
  assert.match(
    failure(() => check.served(answer(201, {}), 'list')).message,
    /^list: expected 200, got 201\. GET /,
  );
  assert.equal(
    failure(() => check.served(answer(200, {}, { 'content-type': 'text/html' }), 'list')).message,
    'list: expected a JSON content type, got "text/html".',
  );
  const untyped = answer(200, {});
  delete untyped.headers['content-type'];
  assert.equal(
    failure(() => check.served(untyped, 'list')).message,
    'list: expected a JSON content type, got "none".',
  );
  assert.equal(
    failure(() => check.served(answer(200, '{"data": ['), 'list')).message,
    'list: the body is not valid JSON.',
  );
  assert.equal(failure(() => check.served(answer(200, '{"data": ['), 'list')).evidence.length, 1);
});

test('noDataOf: a value of a tenant in the body or a header is a leak, three values named at most', () => {
  const everything = answer(200, { data: [...globex.values].map((value) => ({ value })) });
  const leaked = failure(() => check.noDataOf(everything, [undefined, globex], 'probe'));
  assert.equal(leaked.leak, true);
  assert.match(leaked.message, /^probe: the answer holds data of globex: "[^"]+", "[^"]+", "[^"]+"\. GET /);
  assert.equal(
    leaked.message.match(/"(hank@globex\.example|Hank Scorpio|Globex Corp|cus_globex_1)"/g)?.length,
    3,
  );
  assert.equal(leaked.evidence.length, 1);
  const inHeader = answer(403, error('x'), { 'x-customer': 'Hank Scorpio' });
  assert.match(failure(() => check.noDataOf(inHeader, [globex], 'probe')).message, /"Hank Scorpio"/);
  check.noDataOf(answer(200, { data: [{ name: 'Ada Lovelace' }] }), [globex, undefined], 'probe');
  // The first tenant's data is named, not the second's.
  const both = answer(200, { a: 'Ada Lovelace', b: 'Hank Scorpio' });
  assert.match(
    failure(() => check.noDataOf(both, [acme, globex], 'p')).message,
    /holds data of acme: "Ada Lovelace"/,
  );
  assert.throws(() => check.noDataOf(refused, [globex], 'probe'), Inconclusive);
  const baselineMissing = thrown(() => check.noDataOf(answer(200, {}), [globex], 'probe', refused));
  assert.ok(baselineMissing instanceof Inconclusive);
  assert.match(baselineMissing.message, /^probe \(the same request without them\): no HTTP answer/);
});

test('noDataWithoutKey: any spelling of Authorization counts as a key; failures and keyed answers are not judged', () => {
  const leaking = answer(200, { name: 'Hank Scorpio' });
  const keyless = { ...leaking, request: startRequest('GET', 'https://x/v1/customers', []) };
  for (const name of ['authorization', 'AUTHORIZATION', 'Authorization']) {
    const keyed = {
      ...leaking,
      request: startRequest('GET', 'https://x/v1/customers', [
        ['X-A', 'b'],
        [name, 'k'],
      ]),
    };
    check.noDataWithoutKey([keyed]);
  }
  check.noDataWithoutKey([{ ...refused, request: keyless.request }]);
  bare.noDataWithoutKey([keyless]);
  const caught = failure(() => check.noDataWithoutKey([keyless]));
  assert.equal(caught.leak, true);
  assert.match(
    caught.message,
    /^A request sent without Authorization \(a keyless request that gets data is a failure wherever the suite sees it\): the answer holds data of globex/,
  );
  // Own data too: every request needs a key.
  const own = { ...answer(200, { name: 'Ada Lovelace' }), request: keyless.request };
  assert.match(failure(() => check.noDataWithoutKey([own])).message, /holds data of acme/);
});
