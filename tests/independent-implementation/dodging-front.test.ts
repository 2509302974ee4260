// Behind a gateway that answers 503 only to the unusual requests (an odd or repeated
// Authorization, a query string, a forwarding header) and serves the plain ones: the deployment is
// healthy, so the rules the gateway refused are ERROR saying that a front refused exactly the
// requests the rules need and that the deployment cannot be certified through it — not that the
// deployment may be down. The verdict is INCOMPLETE (exit 3); the rules it let through are judged.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runConformance, rulesAfterServed } from '../support/conformance-run.ts';
import { gatedDeploymentPerSuite } from '../support/independent-deployment.ts';
import { dodgingGate } from './dodging-front.ts';
import { assertNoKeyInReports } from './run-support.ts';

/**
 * Plain requests, served by the gateway. TRANSPORT-HSTS is in the last spec file to run: the
 * deployment answers after every refused request too (the last of a run, with nothing after it,
 * keeps the advice to check the deployment's health: nothing shows it was still up).
 */
const SERVED = ['KEY-VALID-SERVED', 'AUTH-MISSING-HEADER-401', 'TRANSPORT-HSTS'];
/** A quoted or malformed key, two Authorization fields, a key in the query, a forwarding header. */
const REFUSED = [
  'AUTH-QUOTED-KEY-REJECTED',
  'AUTH-MALFORMED-BEARER-REJECTED',
  'AUTH-DUPLICATE-HEADER-REJECTED',
  'AUTH-URL-CREDENTIALS-IGNORED',
  'TENANT-FORWARDED-HOST-IGNORED',
];

describe('behind a gateway that answers 503 only to the unusual requests', () => {
  const gate = dodgingGate();
  const deployment = gatedDeploymentPerSuite({ gate: gate.gate });

  test('INCOMPLETE: each refused rule is an ERROR naming the front that refused it, not the deployment’s health', async () => {
    const { target } = deployment();
    const run = await runConformance(
      ['--target', target.file, '--max-retries', '1', '--grep', [...SERVED, ...REFUSED].join('|')],
      target.env,
    );
    assert.ok(gate.refused() >= REFUSED.length, 'the gateway refused requests: the shape was met');
    assert.ok(gate.served() > 0, 'and served the plain ones');
    assert.equal(run.report?.verdict, 'INCOMPLETE', run.stdout);
    assert.equal(run.exitCode, 3);
    const byId = rulesAfterServed(run, SERVED);
    for (const id of REFUSED) {
      const rule = byId.get(id);
      assert.equal(rule?.verdict, 'error', `${id}: ${rule?.message ?? ''}`);
      const message = rule?.message ?? '';
      assert.match(
        message,
        /a front refused exactly the requests the rules need: it answered 503 to all 2 tries/,
        id,
      );
      assert.match(
        message,
        /while the deployment answered this run's requests before and after every one of them/,
        id,
      );
      assert.match(message, /The deployment cannot be certified through this front/, id);
      assert.doesNotMatch(message, /healthy|a restart, a deploy|raise --max-retries/, id);
    }
    assert.doesNotMatch(run.stdout, /Check that the deployment is healthy/);
    assertNoKeyInReports(run, target.env);
  });
});
