// A CA the user added to Node (NODE_EXTRA_CA_CERTS) is trusted by every process of the run, like
// a target's caFile; but the report named no CA file then, and verify printed "CA file: none (the
// system's CAs)" with no private-CA warning for a run that trusted a private CA. The report names
// it, so verify warns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runMetadataOf } from '../../../conformance/run/run-target.ts';
import type { TargetDeclaration } from '../../../conformance/deployment/target.ts';
import { claimWarnings } from '../../../conformance/attestation/claim-warnings.ts';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';

test('trust added by NODE_EXTRA_CA_CERTS is named as the CA file, and warned of', () => {
  const declared: TargetDeclaration = {
    name: 'acme production',
    mode: 'file',
    file: '/work/acme.json',
    baseUrl: 'https://acme.api.acme-saas.example/v1',
    plainHttpBaseUrl: 'http://acme.api.acme-saas.example/v1',
    credentialVariables: {},
    profile: 'strict',
    hosts: {},
  };
  assert.equal(runMetadataOf(declared, false, {}).target.caFile, undefined);
  const target = runMetadataOf(declared, false, { NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem' }).target;
  assert.equal(target.caFile, '/etc/corp/ca.pem');
  const warnings = claimWarnings({
    target,
    rules: [],
    suite: { name: 'kit', version: '1' },
  } as unknown as ConformanceReport);
  assert.ok(
    warnings.includes(
      "Trust came from a private CA (/etc/corp/ca.pem) besides the system's: the certificates below need not be ones a public client accepts.",
    ),
    warnings.join('\n'),
  );
  // The target's own CA file stays the one named.
  assert.equal(
    runMetadataOf({ ...declared, caFile: '/work/ca.crt' }, false, { NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem' })
      .target.caFile,
    '/work/ca.crt',
  );
});
