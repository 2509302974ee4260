// A healthy deployment that was down for a moment (a restart, a deploy) during one rule's request:
// the front before it answered 503 to that request and to its retry, and everything before and
// after was served. The rule is ERROR with the advice to check the deployment's health — one
// stretch of refusals is what an outage looks like — never that a front refused exactly the
// requests the rules need and that the deployment cannot be certified through it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HEALTH_ADVICE } from '../../conformance/requests/transient.ts';
import { runConformance, rulesAfterServed } from '../support/conformance-run.ts';
import { gatedDeploymentPerSuite } from '../support/independent-deployment.ts';
import type { Gate } from './gate-front.ts';
import { assertNoKeyInReports } from './run-support.ts';

const SERVED = ['AUTH-MISSING-HEADER-401', 'KEY-VALID-SERVED', 'TRANSPORT-HSTS'];
/** Its first request (a key in quotation marks) is the one the outage meets. */
const MET = 'AUTH-QUOTED-KEY-REJECTED';
/** The request the outage begins with, and its one retry (--max-retries 1). */
const OUTAGE_REQUESTS = 2;

/** Down from the first request with a quoted key for that many requests, whatever they are. */
function restartingGate(): { gate: Gate; refused: () => number } {
  let refused = 0;
  return {
    refused: () => refused,
    gate: (request) => {
      const began = refused > 0 || (request.headers.authorization ?? '').includes('"');
      if (!began || refused >= OUTAGE_REQUESTS) return { pass: true };
      refused += 1;
      return { answer: { status: 503, headers: { 'Content-Type': 'text/plain' }, body: 'restarting' } };
    },
  };
}

describe('a deployment down for a moment during one rule', () => {
  const gate = restartingGate();
  const deployment = gatedDeploymentPerSuite({ gate: gate.gate });

  test('INCOMPLETE: the rule it met is ERROR with the advice to check the deployment’s health, not a front’s refusal', async () => {
    const { target } = deployment();
    const run = await runConformance(
      ['--target', target.file, '--max-retries', '1', '--grep', [...SERVED, MET].join('|')],
      target.env,
    );
    assert.equal(gate.refused(), OUTAGE_REQUESTS, 'the outage met its requests: the shape was met');
    assert.equal(run.report?.verdict, 'INCOMPLETE', run.stdout);
    const byId = rulesAfterServed(run, SERVED);
    const met = byId.get(MET);
    assert.equal(met?.verdict, 'error', met?.message);
    assert.ok(met?.message?.includes(HEALTH_ADVICE), met?.message);
    assert.doesNotMatch(met?.message ?? '', /a front refused exactly|cannot be certified through/);
    assert.match(
      met?.message ?? '',
      /if a new run meets the same refusal, it is a front that refuses this request/,
    );
    assertNoKeyInReports(run, target.env);
  });
});
