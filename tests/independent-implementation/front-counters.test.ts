// The counts the rate-limit tests bound must be right themselves: refusals after the first, and
// the most arrivals in any one second after the first refusal (a half-open sliding window).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FrontCounters, maxInAnyWindow } from './front-counters.ts';

describe('front counters', () => {
  test('the most times within any half-open window', () => {
    assert.equal(maxInAnyWindow([], 1000), 0);
    assert.equal(maxInAnyWindow([0, 999], 1000), 2);
    assert.equal(maxInAnyWindow([0, 1000], 1000), 1);
    assert.equal(maxInAnyWindow([0, 100, 200, 1150, 1160, 1170, 1180], 1000), 5);
  });

  test('only arrivals after the first refusal count towards the window; refusals after the first are counted', () => {
    const counters = new FrontCounters();
    for (const at of [0, 10, 20, 30]) counters.record(at, false);
    counters.record(40, true);
    assert.deepEqual(counters.counts(), {
      requests: 5,
      refused: 1,
      refusedAfterFirst: 0,
      maxPerSecondAfterFirst: 0,
    });
    for (const at of [50, 60, 1045]) counters.record(at, false);
    counters.record(1050, true);
    assert.deepEqual(counters.counts(), {
      requests: 9,
      refused: 2,
      refusedAfterFirst: 1,
      // 50, 60 and 1045 lie within one second; 1050 does not with 50.
      maxPerSecondAfterFirst: 3,
    });
  });
});
