// The red team's route: a target file whose `credentials.revoked` names a string that never was a
// key, against a server that accepts revoked keys. A never-a-key string is refused as an unknown
// key is, so KEY-REVOKED-REJECTED passed. With `keyMinting` the kit now makes the revoked key
// itself, whatever the file names: it mints a key, sees it served, revokes it, and the rule
// presents that key — NOT CONFORMANT by the revoked-key MUST. (Without minting the certificate says
// the revoked key is the vendor's word: tests/conformance/attestation/vendors-word.test.ts.) The
// control is an honest server: the same minted key is refused there.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import {
  KeyMintingError,
  mintKeys,
  mintedVariable,
  plannedKeys,
} from '../../../conformance/deployment/key-minting.ts';
import { declareTarget, withCredentials } from '../../../conformance/deployment/target.ts';
import { RawClient } from '../../../conformance/requests/raw-client.ts';
import { referenceTargetOn, runConformance } from '../../support/conformance-run.ts';
import { startTestServer, type TestServer } from '../../support/reference-client.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const ADMIN_TOKEN = 'revoked-minting-admin-token-0123456789abcdef';
/** What the vendor's target file names as the revoked key: a string that never was a key. */
const NEVER_A_KEY = 'mbk_prod_ThisStringWasNeverAKeyOfAnyTenant00';
const env = {
  ...fixtureKeyEnvironment(),
  REFERENCE_KEY_ACME_PROD_REVOKED: NEVER_A_KEY,
  TEST_MINTING_ADMIN_TOKEN: ADMIN_TOKEN,
};
let faulty: TestServer;
let honest: TestServer;

before(async () => {
  faulty = await startTestServer({ fault: 'revoked-key-accepted', adminToken: ADMIN_TOKEN });
  honest = await startTestServer({ adminToken: ADMIN_TOKEN });
});

after(async () => {
  await faulty.close();
  await honest.close();
});

/** The reference target of `server`, its revoked key the vendor's string, with key minting (for `tenant`). */
function targetFile(server: TestServer, tenant = 'acme'): string {
  const file = join(scratchDirectory('revoked-minted-'), 'target.json');
  const ports = { https: server.server.httpsPort, http: server.server.httpPort ?? 0 };
  const target = referenceTargetOn(ports, {
    name: 'vendor with a revoked key of its own word',
    caFile: join(server.certDir, 'ca.crt'),
    hosts: { '*.localhost': '127.0.0.1' },
    keyMinting: {
      adminBaseUrl: `https://admin.localhost:${server.server.httpsPort}/v1`,
      adminToken: 'TEST_MINTING_ADMIN_TOKEN',
      tenant,
    },
  });
  writeFileSync(file, JSON.stringify(target));
  return file;
}

/** The answer of `server`'s customers list to `key`. */
async function statusFor(target: ReturnType<typeof declareTarget>, key: string): Promise<number | undefined> {
  const exchange = await new RawClient({ hosts: target.hosts, caFile: target.caFile }).send({
    url: `${target.baseUrl}/customers`,
    method: 'GET',
    headers: [['Authorization', `Bearer ${key}`]],
  });
  return exchange.kind === 'failure' ? undefined : exchange.status;
}

test('with key minting the revoked key is the kit’s own, whatever the file names, and the faulty server serves it', async () => {
  const declared = declareTarget(targetFile(faulty), env);
  assert.equal(declared.credentialVariables.revoked, 'REFERENCE_KEY_ACME_PROD_REVOKED', 'the file names one');
  assert.ok(plannedKeys(declared).some((key) => key.credential === 'revoked'));
  const minted = await mintKeys(declared, ADMIN_TOKEN, declared.caFile);
  try {
    const bound = withCredentials(declared, { ...env, ...minted.env });
    const revoked = bound.credentials.revoked ?? '';
    assert.notEqual(revoked, NEVER_A_KEY);
    assert.equal(revoked, minted.env[mintedVariable('revoked')]);
    assert.equal(bound.credentialVariables.revoked, mintedVariable('revoked'), 'reports name the minted key');
    // The vendor's string is refused as any unknown key; the kit's revoked key is served: a fault.
    assert.equal(await statusFor(declared, NEVER_A_KEY), 401);
    assert.equal(await statusFor(declared, revoked), 200);
    // As the fixtures' revoked key is (the fault the mutation matrix runs against the embedded target).
    assert.equal(
      await statusFor(declared, fixtureKeyEnvironment().REFERENCE_KEY_ACME_PROD_REVOKED ?? ''),
      200,
    );
  } finally {
    await minted.revokeAll();
  }
});

test('a key minted to be revoked that was not served first stops the run, naming the answer and never the key', async () => {
  // The revoked key minted for another tenant than the base URL's: the base URL never serves it.
  const declared = declareTarget(targetFile(honest, 'globex'), env);
  await assert.rejects(
    mintKeys(declared, ADMIN_TOKEN, declared.caFile),
    (error: Error) =>
      error instanceof KeyMintingError &&
      /the key minted to be revoked was not served before its revocation: GET https:\/\/acme\.api\.localhost:\d+\/v1\/customers answered 401/.test(
        error.message,
      ) &&
      !/mbk_/.test(error.message),
  );
});

test("the red team's route with key minting: NOT CONFORMANT by KEY-REVOKED-REJECTED, the revoked key the kit's word", async () => {
  const run = await runConformance(['--target', targetFile(faulty), '--grep', '@KEY-REVOKED-REJECTED'], env);
  const output = `${run.stdout.slice(-3000)}\n${run.stderr}`;
  assert.equal(run.report?.verdict, 'NOT CONFORMANT', output);
  const rule = run.report?.rules.find((candidate) => candidate.id === 'KEY-REVOKED-REJECTED');
  assert.equal(rule?.verdict, 'fail', output);
  assert.ok(run.report?.target.keysMinted?.includes('revoked'));
  // The kit revoked that key itself: the scope does not say it is the vendor's word.
  assert.ok(run.report?.scope?.vendorsWord?.length, 'the other inputs still rest on it');
  assert.ok(!run.report?.scope?.vendorsWord?.some((line) => line.startsWith('credentials.revoked ')));
  assert.ok(!output.includes(ADMIN_TOKEN));
});
