// The independent implementation with HTTP/2 on (by ALPN, beside HTTP/1.1 on one listener): the
// suite learns it from the handshake and checks every rule over both protocols, CONFORMANT with
// each; and the same implementation with a defect only its HTTP/2 path has is NOT CONFORMANT over
// HTTP/2 alone, which the report says protocol by protocol. Every deployment is checked in one
// batch (tests/support/batched-runs.ts), each over the protocols its run of its own would speak.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { batchOfDeployments } from '../support/batched-runs.ts';
import { startIndependentDeployment } from '../support/independent-deployment.ts';
import { assertConformantOverBothProtocols, exchangeVersions } from '../support/protocol-verdicts.ts';
import { assertConformant, assertNoKeyInReports } from './run-support.ts';
import { notApplicableByNature } from '../support/not-applicable-by-nature.ts';
import { testUnderBothProfiles } from '../support/both-profiles.ts';

const batch = batchOfDeployments();

describe('an implementation that offers HTTP/2 by ALPN', () => {
  // Two deployments of the same choice: each run has its own, as each run's had before.
  const offered = batch.add('h2-offered', () => startIndependentDeployment({ http2: true }), {
    profile: 'strict',
    protocols: 'offered',
  });
  const h1Only = batch.add('h2-offered-protocols-h1', () => startIndependentDeployment({ http2: true }), {
    protocols: ['h1'],
  });

  testUnderBothProfiles(
    (profile) => `--profile ${profile}: every rule checked over HTTP/1.1 and HTTP/2, CONFORMANT over each`,
    () => Promise.resolve(offered().run),
    (run) => {
      assertConformant(run);
      assertConformantOverBothProtocols(run);
      assertNoKeyInReports(run, offered().target.env);
    },
  );

  test("--protocols h1: the catalog over HTTP/1.1, the rules of HTTP/2's own still over HTTP/2", () => {
    const { run } = h1Only();
    assertConformant(run);
    assert.equal(run.report?.protocols, undefined);
    const versions = exchangeVersions(run.reportDir);
    assert.deepEqual(Object.keys(versions).sort(), ['HTTP/1.1', 'HTTP/2']);
    // Four authorization shapes, two host conflicts and one more, five over one connection, and
    // the h2c rule's two requests by prior knowledge on the plain port.
    assert.ok(
      (versions['HTTP/2'] ?? 0) <= 14,
      `only the HTTP/2 rules spoke HTTP/2: ${JSON.stringify(versions)}`,
    );
  });
});

describe('an implementation that reads only the :authority over HTTP/2', () => {
  const deployed = batch.add(
    'authority-only',
    () => startIndependentDeployment({ http2: 'authority-only' }),
    { protocols: 'offered' },
  );

  test('CONFORMANT under the default profile: a host field beside it is ignored, never followed', () => {
    const { run } = deployed();
    assert.equal(run.report?.verdict, 'CONFORMANT');
    // Checked over both protocols, as a run of its own over what the target offers is.
    assert.deepEqual(
      run.report?.protocols?.map((protocol) => protocol.name),
      ['HTTP/1.1', 'HTTP/2'],
    );
    const byId = new Map(run.report?.rules.map((rule) => [rule.id, rule.verdict]));
    assert.equal(byId.get('TENANT-H2-AUTHORITY-HOST-CONFLICT-NO-DATA'), 'pass');
    // RFC 9113 §8.3.1's SHOULD: an HTTP-level finding, a warning that only the strict profile fails.
    assert.equal(byId.get('TENANT-H2-AUTHORITY-HOST-CONFLICT-REJECTED'), 'warning');
    for (const rule of run.report?.rules ?? [])
      if (rule.id !== 'TENANT-H2-AUTHORITY-HOST-CONFLICT-REJECTED')
        // No cookie set, no ETag served: those rules are not applicable, never passed.
        assert.equal(rule.verdict, notApplicableByNature(rule) ? 'not-applicable' : 'pass', rule.id);
  });
});

describe('an implementation whose HTTP/2 path looks for a host field HTTP/2 does not send', () => {
  const deployed = batch.add(
    'reads-host-field',
    () => startIndependentDeployment({ http2: 'reads-host-field' }),
    { protocols: 'offered' },
  );

  test('NOT CONFORMANT over HTTP/2, CONFORMANT over HTTP/1.1; each failure says over which', () => {
    const { run } = deployed();
    assert.equal(run.report?.verdict, 'NOT CONFORMANT');
    assert.equal(run.exitCode, 1);
    assert.match(run.stdout, /VERDICT: NOT CONFORMANT/);
    assert.deepEqual(run.report?.protocols, [
      { name: 'HTTP/1.1', verdict: 'CONFORMANT' },
      { name: 'HTTP/2', verdict: 'NOT CONFORMANT' },
    ]);
    const served = run.report?.rules.find((rule) => rule.id === 'KEY-VALID-SERVED');
    assert.equal(served?.verdict, 'fail');
    assert.deepEqual(served?.protocols, { 'HTTP/1.1': 'pass', 'HTTP/2': 'fail' });
    assert.match(served?.message ?? '', /^over HTTP\/2: /);
    assert.equal(served?.evidence?.[0]?.protocol, 'HTTP/2');
    for (const rule of run.report?.rules ?? [])
      assert.notEqual(rule.protocols?.['HTTP/1.1'], 'fail', `${rule.id} passes over HTTP/1.1`);
  });
});
