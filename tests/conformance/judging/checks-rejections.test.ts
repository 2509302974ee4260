// The rejections, statuses, headers and check.each of the assertions (conformance/judging/checks.ts)
// on hand-made exchanges: where a status stops being a rejection, what a code must be, when no
// answer is a rejection, and how check.each adds failures up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ConformanceFailure, Inconclusive } from '../../../conformance/judging/checks.ts';
import type { Exchange } from '../../../conformance/requests/exchange.ts';
import {
  acme,
  answer,
  bare,
  check,
  error,
  failure,
  refused,
  signalled,
  transient,
} from './checks-exchanges.ts';

test('rejected: every status from 400 up is a rejection, every status below is not', () => {
  fc.assert(
    fc.property(fc.integer({ min: 100, max: 599 }), (status) => {
      const run = () => check.rejected(answer(status, error('any')), 'probe', { noDataOf: [] });
      if (status >= 400) run();
      else
        assert.equal(
          failure(run).message,
          `probe: expected a rejection (4xx), got ${status}. GET https://acme.api.example.com/v1/customers → ${status} any`,
        );
    }),
  );
});

test("rejected: by default neither tenant's data; codes: one of them, or it says what it got", () => {
  assert.match(
    failure(() => check.rejected(answer(401, { m: 'Ada Lovelace' }), 'p')).message,
    /data of acme/,
  );
  assert.match(
    failure(() => check.rejected(answer(401, { m: 'Hank Scorpio' }), 'p')).message,
    /data of globex/,
  );
  check.rejected(answer(401, { m: 'Hank Scorpio' }), 'p', { noDataOf: [acme] });
  const codes = ['invalid_api_key', 'missing_authorization_header'];
  check.rejected(answer(401, error('missing_authorization_header')), 'p', { codes });
  assert.match(
    failure(() => check.rejected(answer(401, error('forbidden')), 'p', { codes })).message,
    /^p: expected error\.code invalid_api_key or missing_authorization_header, got "forbidden"\. GET /,
  );
  assert.match(
    failure(() => check.rejected(answer(401, { message: 'no code' }), 'p', { codes })).message,
    /^p: expected error\.code invalid_api_key or missing_authorization_header, got no error code\. GET /,
  );
  assert.equal(failure(() => check.rejected(answer(401, {}), 'p', { codes })).evidence.length, 1);
});

test('rejected: a refusal passes only when the rule allows no answer and asks for no code', () => {
  check.rejected(refused, 'p', { allowNoResponse: true });
  assert.throws(() => check.rejected(refused, 'p'), Inconclusive);
  assert.throws(() => check.rejected(refused, 'p', { allowNoResponse: false }), Inconclusive);
  assert.throws(() => check.rejected(refused, 'p', { allowNoResponse: true, codes: ['x'] }), Inconclusive);
  assert.throws(() => check.rejected(transient, 'p', { allowNoResponse: true }), Inconclusive);
  assert.throws(() => check.rejected(signalled, 'p', { allowNoResponse: true }), Inconclusive);
});

test('status and header: the expected values pass, anything else fails naming what came', () => {
  const ok = answer(403, error('x'), { 'cache-control': 'no-store, private' });
  assert.equal(check.status(ok, [401, 403], 'p'), ok);
  assert.match(
    failure(() => check.status(ok, [401, 404], 'p')).message,
    /^p: expected status 401 or 404, got 403\. GET /,
  );
  assert.throws(() => check.status(refused, [401], 'p'), Inconclusive);
  check.header(ok, 'Cache-Control', /no-store/, 'p');
  assert.match(
    failure(() => check.header(ok, 'Cache-Control', /^public$/, 'p')).message,
    /^p: expected a Cache-Control header matching \/\^public\$\/, got "no-store, private"\. GET /,
  );
  assert.match(
    failure(() => check.header(ok, 'Vary', /Authorization/, 'p')).message,
    /^p: expected a Vary header matching \/Authorization\/, got none\. GET /,
  );
  assert.equal(failure(() => check.header(ok, 'Vary', /x/, 'p')).evidence.length, 1);
});

test('check.each: one failure is thrown as it is; several become one, a leak if any was; a defect stops at once', async () => {
  const single = new ConformanceFailure('only', []);
  await assert.rejects(
    check.each([1, 2], (n) => {
      if (n === 2) throw single;
    }),
    (caught: unknown) => caught === single,
  );
  const first = new ConformanceFailure('first', [check.evidence(refused)]);
  const second = new ConformanceFailure('second', [check.evidence(answer(200, {}))], true);
  await assert.rejects(
    check.each([first, second], (failed) => Promise.reject(failed)),
    (caught: unknown) => {
      assert.ok(caught instanceof ConformanceFailure);
      assert.equal(caught.message, 'first\nsecond');
      assert.equal(caught.evidence.length, 2);
      assert.equal(caught.leak, true);
      return true;
    },
  );
  await assert.rejects(
    check.each([first, first], (failed) => Promise.reject(failed)),
    (caught: unknown) => caught instanceof ConformanceFailure && caught.leak === false,
  );
  const defect = new TypeError('a bug of the rule');
  const judged: number[] = [];
  await assert.rejects(
    check.each([1, 2, 3], (n) => {
      judged.push(n);
      if (n === 2) throw defect;
    }),
    (caught: unknown) => caught === defect,
  );
  assert.deepEqual(judged, [1, 2]);
  const early = new Inconclusive('early');
  await assert.rejects(
    check.each([early, new Inconclusive('late')], (undecided) => Promise.reject(undecided)),
    (caught: unknown) => caught === early,
  );
  await assert.rejects(
    check.each([early, single], (thrownValue) => Promise.reject(thrownValue)),
    (caught: unknown) => caught === single,
  );
  await check.each([], () => assert.fail('no probe'));
});

test('a Checks without knowledge judges no tenant data by default', () => {
  bare.rejected(answer(401, { m: 'Hank Scorpio' }), 'p');
  const exchanges: Exchange[] = [answer(401, {})];
  bare.noDataWithoutKey(exchanges);
});

test('the edges: 400 is a rejection and 399 is not; a header missing fails whatever the pattern', () => {
  check.rejected(answer(400, error('any')), 'probe', { noDataOf: [] });
  assert.match(
    failure(() => check.rejected(answer(399, error('any')), 'probe', { noDataOf: [] })).message,
    /expected a rejection \(4xx\), got 399/,
  );
  // A pattern that any text matches, even "undefined": a header that is not there still fails.
  assert.match(failure(() => check.header(answer(200, {}), 'Vary', /.*/, 'probe')).message, /got none/);
});

test("a leak's evidence, and several failures' evidence together, are each exchange's", async () => {
  const leaked = failure(() => check.leak('saw', answer(200, {}), answer(403, error('x'))));
  assert.deepEqual(
    leaked.evidence.map((evidence) => evidence.status),
    [200, 403],
  );
  await assert.rejects(
    check.each([answer(200, {}), answer(302, {})], (exchange) => check.rejected(exchange, 'p')),
    (thrown: unknown) =>
      thrown instanceof ConformanceFailure &&
      thrown.evidence.map((evidence) => evidence.status).join() === '200,302',
  );
});
