// The isolation rules need two tenants of one deployment. A target file whose otherTenantBaseUrl
// named a tenant on another port (a copy of the service holding the other tenant alone) made a
// deployment that serves the other tenant's customers to this tenant's key a signed, VERIFIED,
// strict CONFORMANT certificate: the leak could not be seen, since the two tenants never shared a
// server. Such a run is partial (INCOMPLETE under strict), and verify recomputes that from the
// report's hosts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConformanceReport, TlsEvidence } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { scopeLabel, scopeOf } from '../../../conformance/report/scope.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { tlsEvidence } from '../../support/tls-evidence.ts';
import { bundleOf, vendor } from '../../support/forger.ts';

/** The preflight's evidence of the base URL's host and the other tenant's. */
function hosts(base: string, other: string): TlsEvidence[] {
  return [
    { ...tlsEvidence(['HTTP/1.1', 'HTTP/2'], base), field: 'baseUrl' },
    { ...tlsEvidence(['HTTP/1.1', 'HTTP/2'], other), field: 'otherTenantBaseUrl' },
  ];
}

function scopeOver(tls: TlsEvidence[]): NonNullable<ConformanceReport['scope']> {
  return scopeOf({
    protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
    tls,
    rulesSelected: RULES.length,
    rulesInCatalog: RULES.length,
  });
}

test("the other tenant on another port or domain than the base URL's: partial, INCOMPLETE under strict", () => {
  for (const other of ['globex.api.acme-saas.example:443', 'GLOBEX.API.ACME-SAAS.EXAMPLE:443'])
    assert.deepEqual(scopeOver(hosts('acme.api.acme-saas.example:443', other)).partial, []);
  for (const other of ['globex.api.acme-saas.example:8443', 'globex.api.isolated-copy.example:443']) {
    const scope = scopeOver(hosts('acme.api.acme-saas.example:443', other));
    assert.deepEqual(scope.partial, [
      `The other tenant (${other}) is not on the base URL's deployment ({tenant}.api.acme-saas.example:443): the isolation rules compared tenants of two addresses, not two tenants of one deployment. Give otherTenantBaseUrl a tenant of the same domain and port, sent where the base URL is.`,
    ]);
    assert.equal(scopeLabel({ scope }), 'other tenant elsewhere');
  }
  // One domain and port, but the host map sends the other tenant's name to another address.
  const tlsOfOneName = hosts('acme.api.acme-saas.example:443', 'globex.api.acme-saas.example:443');
  const mapped = (hostMap: Record<string, string>): string[] =>
    scopeOf({
      protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
      tls: tlsOfOneName,
      hostMap,
      rulesSelected: RULES.length,
      rulesInCatalog: RULES.length,
    }).partial;
  assert.deepEqual(mapped({ '*.acme-saas.example': '203.0.113.7' }), []);
  assert.deepEqual(
    mapped({ '*.acme-saas.example': '203.0.113.7', 'globex.api.acme-saas.example': '198.51.100.9' }),
    [
      "The other tenant (globex.api.acme-saas.example:443) was sent to 198.51.100.9 by the host map, the base URL's host (acme.api.acme-saas.example:443) to 203.0.113.7: the isolation rules compared tenants of two addresses, not two tenants of one deployment. Give otherTenantBaseUrl a tenant of the same domain and port, sent where the base URL is.",
    ],
  );
  assert.equal(
    mapped({ 'globex.api.acme-saas.example': '198.51.100.9' }).length,
    1,
    'one mapped, one by DNS',
  );
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  const tls = hosts('acme.api.acme-saas.example:443', 'globex.api.acme-saas.example:8443');
  const built = buildReport(outcomes, {
    target: { name: 'acme', mode: 'file', baseUrl: 'https://acme.api.acme-saas.example/v1' },
    profile: 'strict',
    startedAt: new Date('2026-11-27T10:00:00Z'),
    durationMs: 20_000,
    tls,
    scope: scopeOver(tls),
  });
  assert.equal(built.verdict, 'INCOMPLETE');
});

test('verify refuses a signed report of such a run that says it is complete', async () => {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  const tls = hosts('acme.api.acme-saas.example:443', 'globex.api.acme-saas.example:8443');
  // The scope as a run made it before: the other tenant's host not weighed.
  const scope = scopeOver(tls.filter((entry) => entry.field === 'baseUrl'));
  assert.deepEqual(scope.partial, []);
  const built = buildReport(outcomes, {
    target: { name: 'acme', mode: 'file', baseUrl: 'https://acme.api.acme-saas.example/v1' },
    profile: 'strict',
    startedAt: new Date('2026-11-27T10:00:00Z'),
    durationMs: 20_000,
    tls,
    scope,
  });
  assert.equal(built.verdict, 'CONFORMANT');
  const { problems, signature } = await verifyBundle(bundleOf(built), { trustedKeys: [vendor.publicKey] });
  assert.equal(signature.state, 'trusted');
  assert.ok(
    problems.some((problem) =>
      problem.startsWith(
        'conformance.json\'s scope does not follow from its protocols and hosts: it should say ["The other tenant (globex.api.acme-saas.example:8443) is not on',
      ),
    ),
    problems.join('\n'),
  );
});

test('verify recomputes it from the host map of the report', async () => {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  const tls = hosts('acme.api.acme-saas.example:443', 'globex.api.acme-saas.example:443');
  // The scope as a run made it before: the host map not weighed.
  const scope = scopeOver(tls);
  const built = buildReport(outcomes, {
    target: {
      name: 'acme',
      mode: 'file',
      baseUrl: 'https://acme.api.acme-saas.example/v1',
      hosts: { '*.acme-saas.example': '203.0.113.7', 'globex.api.acme-saas.example': '198.51.100.9' },
    },
    profile: 'strict',
    startedAt: new Date('2026-11-27T10:00:00Z'),
    durationMs: 20_000,
    tls,
    scope,
  });
  assert.equal(built.verdict, 'CONFORMANT');
  const { problems } = await verifyBundle(bundleOf(built), { trustedKeys: [vendor.publicKey] });
  assert.ok(
    problems.some((problem) =>
      problem.includes(
        '"The other tenant (globex.api.acme-saas.example:443) was sent to 198.51.100.9 by the host map',
      ),
    ),
    problems.join('\n'),
  );
});
