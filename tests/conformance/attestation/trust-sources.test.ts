// Every source of trust the run's processes took from their environment — NODE_EXTRA_CA_CERTS,
// --use-openssl-ca (in NODE_OPTIONS or Node's own options), SSL_CERT_FILE, SSL_CERT_DIR and
// NODE_OPTIONS — is recorded in the report's target (and so in the signed statement), and `verify`
// names each, with the private-CA warning. The red team's run, `NODE_OPTIONS=--use-openssl-ca
// SSL_CERT_FILE=<the private CA> run …`, printed "CA file: none (the system's CAs)" and no warning.
// The control: a run from a clean environment records none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trustSources } from '../../../conformance/requests/trust-sources.ts';
import { runMetadataOf } from '../../../conformance/run/run-target.ts';
import type { TargetDeclaration } from '../../../conformance/deployment/target.ts';
import { bundleOf, report, verifyCli } from '../../support/forger.ts';

const declared: TargetDeclaration = {
  name: 'acme',
  mode: 'file',
  file: 'target.json',
  baseUrl: 'https://api.acme.example/v1',
  plainHttpBaseUrl: 'http://api.acme.example/v1',
  credentialVariables: {},
  profile: 'strict',
  hosts: {},
};

const RED_TEAM = { NODE_OPTIONS: '--use-openssl-ca', SSL_CERT_FILE: '/etc/private/ca.pem' };

test("the red team's environment: each source recorded in the report's target", () => {
  const trust = runMetadataOf(declared, false, RED_TEAM, { protocols: ['h1'] }).target.trust ?? [];
  assert.equal(trust.length, 3, JSON.stringify(trust));
  assert.match(trust[0] ?? '', /^--use-openssl-ca: Node trusts OpenSSL's store of CAs/);
  assert.match(trust[1] ?? '', /^SSL_CERT_FILE=\/etc\/private\/ca\.pem/);
  assert.match(trust[2] ?? '', /^NODE_OPTIONS=--use-openssl-ca/);
  assert.deepEqual(trustSources({ SSL_CERT_DIR: '/etc/ssl/private-certs' }, []), [
    "SSL_CERT_DIR=/etc/ssl/private-certs: OpenSSL's CA folder",
  ]);
  assert.deepEqual(trustSources({}, ['--use-openssl-ca']), [
    "--use-openssl-ca: Node trusts OpenSSL's store of CAs",
  ]);
  // The control: a clean environment records nothing.
  assert.equal(runMetadataOf(declared, false, {}, { protocols: ['h1'] }).target.trust, undefined);
});

test('verify names every source of trust and warns of it', async (t) => {
  const built = report({ profile: 'strict' });
  const target = runMetadataOf(declared, false, RED_TEAM, { protocols: ['h1'] }).target;
  const verified = await verifyCli(t, [
    bundleOf({ ...built, target: { ...built.target, trust: target.trust ?? [] } }),
  ]);
  assert.equal(verified.code, 4, verified.out + verified.err);
  assert.match(verified.out, /Trust: +--use-openssl-ca: Node trusts OpenSSL's store of CAs/);
  assert.match(verified.out, /Trust: +SSL_CERT_FILE=\/etc\/private\/ca\.pem/);
  assert.match(verified.out + verified.err, /Trust came from the run's environment too \(SSL_CERT_FILE=/);
  const control = await verifyCli(t, [bundleOf(built)]);
  assert.doesNotMatch(control.out, /Trust:/);
});
