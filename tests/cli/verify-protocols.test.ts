// `verify` of a target without HTTP/2 says so in a sentence, as every report does ("HTTP/2 not
// offered by the target"), never "HTTP/2 undefined". The control: a run over both protocols names
// each one's verdict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RULES } from '../../conformance/catalog/rules.ts';
import { buildReport } from '../../conformance/report/build-report.ts';
import { scopeOf } from '../../conformance/report/scope.ts';
import type { TestOutcome } from '../../conformance/report/verdict.ts';
import { bundleOf, verifyCli } from '../support/forger.ts';
import { tlsEvidence } from '../support/tls-evidence.ts';

function bundle(offered: string[]): string {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  const tls = tlsEvidence(offered);
  return bundleOf(
    buildReport(outcomes, {
      target: { name: 'acme', mode: 'file', baseUrl: 'https://api.acme.example/v1' },
      profile: 'strict',
      startedAt: new Date('2026-11-25T10:00:00Z'),
      durationMs: 1000,
      options: { failOnIncomplete: false, requestTimeoutSeconds: 10, selectedRules: RULES.length },
      runProtocols: ['HTTP/1.1'],
      notOffered: offered.includes('HTTP/2') ? [] : ['HTTP/2'],
      tls: [tls],
      scope: scopeOf({
        protocolsChecked: ['HTTP/1.1'],
        tls: [tls],
        rulesSelected: RULES.length,
        rulesInCatalog: RULES.length,
      }),
    }),
  );
}

test('verify of a target without HTTP/2: a sentence, not "HTTP/2 undefined"', async (t) => {
  const verified = await verifyCli(t, [bundle(['HTTP/1.1'])]);
  assert.equal(verified.code, 4, verified.out + verified.err);
  assert.doesNotMatch(verified.out, /undefined/);
  assert.match(verified.out, /HTTP\/2 not offered by the target/);
});
