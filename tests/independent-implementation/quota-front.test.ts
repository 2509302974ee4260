// Behind a gateway that answers the unusual requests 429 with a Retry-After far beyond the run's
// retry budget (120 s, 999999 s, a date in 9999) or one RFC 9110 does not allow ("1.5", "-5",
// "May 3"), and serves the rest: the run ends within its budget, the rules the gateway let through
// are judged, the others are ERROR naming the front — INCOMPLETE, exit 3, never a stall.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runConformance, rulesAfterServed } from '../support/conformance-run.ts';
import { gatedDeploymentPerSuite } from '../support/independent-deployment.ts';
import { quotaGate } from './quota-front.ts';
import { assertNoKeyInReports } from './run-support.ts';

/** Served by the gateway (a plain keyed GET); refused by it (odd Authorization, a forwarding header). */
const SERVED = ['KEY-VALID-SERVED', 'AUTH-MISSING-HEADER-401'];
const REFUSED = [
  'AUTH-QUOTED-KEY-REJECTED',
  'AUTH-MALFORMED-BEARER-REJECTED',
  'TENANT-FORWARDED-HOST-IGNORED',
];
const BUDGET_SECONDS = 5;

describe('behind a gateway whose quota answers the unusual requests 429 with a long or unreadable Retry-After', () => {
  const quota = quotaGate();
  const refused = quota.refused;
  const deployment = gatedDeploymentPerSuite({ gate: quota.gate });

  test('INCOMPLETE (exit 3) within the budget: served rules judged, refused ones ERROR naming the front', async () => {
    const { target } = deployment();
    const run = await runConformance(
      [
        '--target',
        target.file,
        '--retry-budget',
        String(BUDGET_SECONDS),
        '--grep',
        [...SERVED, ...REFUSED].join('|'),
      ],
      target.env,
    );
    assert.ok(refused() >= REFUSED.length, 'the gateway refused requests: the shape was met');
    assert.equal(run.report?.verdict, 'INCOMPLETE', run.stdout);
    assert.equal(run.exitCode, 3);
    const byId = rulesAfterServed(run, SERVED);
    for (const id of REFUSED) {
      const rule = byId.get(id);
      assert.equal(rule?.verdict, 'error', id);
      assert.match(rule?.message ?? '', /only transient answers/, id);
      assert.match(rule?.message ?? '', /429/, id);
      assert.doesNotMatch(
        rule?.message ?? '',
        /timeout|exceeded during setup/i,
        `${id} ended by its answer, not a time-out`,
      );
    }
    // The budget bounds the waiting; a Retry-After beyond it was never waited for.
    assert.ok(
      (run.report?.traffic?.waitedSeconds ?? 0) <= BUDGET_SECONDS,
      JSON.stringify(run.report?.traffic),
    );
    assertNoKeyInReports(run, target.env);
  });
});
