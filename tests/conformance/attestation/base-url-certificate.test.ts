// A report that names one base URL and gives the certificate another host showed for it says its
// rules ran against a target it does not name (two targets' rule projects in one team config gave
// such a report, signed: base URL on one port, certificates from the copy on another). verify
// refuses it; the embedded reference's port, chosen when it starts, is left aside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { writeReports } from '../../../conformance/report/write-reports.ts';
import { scopeOf } from '../../../conformance/report/scope.ts';
import { writeBundle } from '../../../conformance/attestation/bundle.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { tlsEvidence } from '../../support/tls-evidence.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const vendor = generateKeyPairSync('ed25519');

async function problemsOf(target: ConformanceReport['target'], certificateHost: string): Promise<string[]> {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  const tls = [tlsEvidence(['HTTP/1.1', 'HTTP/2'], certificateHost)];
  const built = buildReport(outcomes, {
    target,
    profile: 'strict',
    startedAt: new Date('2026-11-27T10:00:00Z'),
    durationMs: 20_000,
    tls,
    scope: scopeOf({
      protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
      tls,
      rulesSelected: RULES.length,
      rulesInCatalog: RULES.length,
    }),
  });
  const reports = scratchDirectory('base-url-certificate-');
  writeReports(built, { exchanges: [] }, reports);
  return (
    await verifyBundle(writeBundle(built, reports, vendor.privateKey).directory, {
      trustedKeys: [vendor.publicKey],
    })
  ).problems;
}

test("verify refuses a report whose base URL's certificate was seen at another host", async () => {
  const file = (baseUrl: string): ConformanceReport['target'] => ({ name: 'acme', mode: 'file', baseUrl });
  assert.deepEqual(
    await problemsOf(file('https://acme.api.localhost:21443/v1'), 'acme.api.localhost:21443'),
    [],
  );
  assert.deepEqual(await problemsOf(file('https://API.acme.example/v1'), 'api.acme.example:443'), []);
  assert.deepEqual(
    await problemsOf(file('https://acme.api.localhost:21443/v1'), 'acme.api.localhost:19443'),
    [
      "conformance.json names the base URL https://acme.api.localhost:21443/v1, but its base URL's certificate was seen at acme.api.localhost:19443: the rules ran against another target than the one it names.",
    ],
  );
  assert.equal((await problemsOf(file('https://api.acme.example/v1'), 'api.other.example:443')).length, 1);
  // An IPv6 address as the preflight writes it: brackets, no default port.
  assert.deepEqual(await problemsOf(file('https://[2001:db8::1]/v1'), '[2001:db8::1]'), []);
  assert.deepEqual(await problemsOf(file('https://[2001:db8::1]:8443/v1'), '[2001:db8::1]:8443'), []);
  // The embedded reference: its port is chosen when it starts.
  const embedded: ConformanceReport['target'] = {
    name: 'reference server',
    mode: 'embedded',
    baseUrl: 'https://acme.api.localhost:{free port}/v1',
  };
  assert.deepEqual(await problemsOf(embedded, 'acme.api.localhost:42735'), []);
  assert.equal((await problemsOf(embedded, 'globex.api.localhost:42735')).length, 1);
});
