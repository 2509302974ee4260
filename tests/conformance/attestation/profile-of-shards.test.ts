// A shard run under the default profile lets an HTTP rule's failure pass as a warning; merged with
// a shard run under strict, the merged report takes strict as its profile. The failure must stay a
// failure there (NOT CONFORMANT), and `verify` must refuse a strict report that holds such a
// warning, signed by the vendor's own key. (A real merge of a default shard holding every rule with
// a strict shard of one rule gave a signed, VERIFIED, strict CONFORMANT certificate for a target
// that fails two HTTP rules.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport, type RunDescription } from '../../../conformance/report/build-report.ts';
import { runVerdict, type TestOutcome } from '../../../conformance/report/verdict.ts';
import { writeReports } from '../../../conformance/report/write-reports.ts';
import { scopeOf } from '../../../conformance/report/scope.ts';
import { writeBundle } from '../../../conformance/attestation/bundle.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { tlsEvidence } from '../../support/tls-evidence.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const vendor = generateKeyPairSync('ed25519');
const httpRule = RULES.find((rule) => rule.level === 'HTTP') ?? assert.fail('the catalog has an HTTP rule');

/** What a test of `httpRule` run under the default profile leaves: passed, with the failure as a warning. */
const warnedUnderDefault: TestOutcome = {
  status: 'passed',
  warning: 'An unknown key: expected a WWW-Authenticate header, got none.',
  failure: { message: 'An unknown key: expected a WWW-Authenticate header, got none.', evidence: [] },
};

function run(profile: 'default' | 'strict', byProtocol: boolean): ConformanceReport {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  outcomes.set(httpRule.id, [warnedUnderDefault]);
  const certificate = tlsEvidence(['HTTP/1.1', 'HTTP/2']);
  const description: RunDescription = {
    target: { name: 'acme production', mode: 'file', baseUrl: 'https://api.acme.example/v1' },
    profile,
    startedAt: new Date('2026-11-27T10:00:00Z'),
    durationMs: 20_000,
    options: { failOnIncomplete: false, requestTimeoutSeconds: 10, selectedRules: RULES.length },
    tls: [certificate],
    scope: scopeOf({
      protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
      tls: [certificate],
      rulesSelected: RULES.length,
      rulesInCatalog: RULES.length,
      shards: ['1/2', '2/2'],
    }),
  };
  return buildReport(
    outcomes,
    byProtocol
      ? {
          ...description,
          // Shard 1 ran every rule over HTTP/1.1 under default; shard 2 over HTTP/2 under strict.
          byProtocol: new Map([
            ['HTTP/1.1', outcomes],
            ['HTTP/2', new Map(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]))],
          ]),
        }
      : description,
  );
}

test('a warning of an HTTP rule, merged into a strict report, is the failure it was: NOT CONFORMANT', () => {
  for (const byProtocol of [false, true]) {
    const merged = run('strict', byProtocol);
    const rule = merged.rules.find((candidate) => candidate.id === httpRule.id);
    assert.equal(rule?.verdict, 'fail');
    assert.equal(rule?.message, warnedUnderDefault.warning);
    assert.equal(merged.verdict, 'NOT CONFORMANT');
    if (byProtocol) {
      assert.deepEqual(rule?.protocols, { 'HTTP/1.1': 'fail', 'HTTP/2': 'pass' });
      assert.deepEqual(
        merged.protocols?.map((protocol) => protocol.verdict),
        ['NOT CONFORMANT', 'CONFORMANT'],
      );
    }
  }
  // Under default the same outcome stays a warning, and the run CONFORMANT.
  const underDefault = run('default', true);
  assert.equal(underDefault.rules.find((rule) => rule.id === httpRule.id)?.verdict, 'warning');
  assert.equal(underDefault.verdict, 'CONFORMANT');
});

test('verify refuses a strict report, signed by the vendor, whose HTTP rule is a warning', async () => {
  // The report a merge made before: the rules judged as under default, the profile strict.
  const asUnderDefault = run('default', true);
  const forged: ConformanceReport = {
    ...asUnderDefault,
    profile: 'strict',
    verdict: runVerdict(asUnderDefault.rules, 'strict', asUnderDefault.scope),
    protocols: asUnderDefault.protocols?.map((protocol) => ({ ...protocol, verdict: 'CONFORMANT' })),
  };
  assert.equal(forged.verdict, 'CONFORMANT');
  const reports = scratchDirectory('profile-of-shards-');
  writeReports(forged, { exchanges: [] }, reports);
  const bundle = writeBundle(forged, reports, vendor.privateKey).directory;
  const result = await verifyBundle(bundle, { trustedKeys: [vendor.publicKey] });
  assert.equal(result.signature.state, 'trusted');
  assert.deepEqual(result.problems, [
    `conformance.json says ${httpRule.id} warning, but a failure of a HTTP rule fails the run under profile strict: it was judged under a milder profile.`,
  ]);
  // The same report under its own profile, default, verifies.
  const honest = scratchDirectory('profile-of-shards-');
  writeReports(asUnderDefault, { exchanges: [] }, honest);
  const honestBundle = writeBundle(asUnderDefault, honest, vendor.privateKey).directory;
  assert.deepEqual((await verifyBundle(honestBundle, { trustedKeys: [vendor.publicKey] })).problems, []);
});
