// The most common correct deployment shape: the reference server behind a front like nginx
// (./host-front.ts: one certificate for *.api.localhost, routing by Host, no SNI check). A
// request on a connection opened for acme with `Host: globex…` and globex's own key is served
// globex's customers there — legitimate where the certificate covers both names. The suite must
// find this deployment CONFORMANT; only the advisory 421 rule may warn, since the front answers
// an SNI/Host mismatch like any other request instead of 421.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTargetFile } from '../../conformance/target/target.ts';
import { EMBEDDED_TARGET_FILE, fixtureKeyEnvironment } from '../../conformance/target/embedded-target.ts';
import { runConformance } from '../support/conformance-run.ts';
import { startCli, type CliProcess } from '../support/reference-cli.ts';
import { startHostFront, type HostFront } from './host-front.ts';
import { assertConformant, probe, unusedPort, writeTargetFile } from './run-support.ts';

describe('the reference server behind a front that routes by Host (nginx shape)', () => {
  let reference: CliProcess;
  let front: HostFront;
  let targetFile: string;
  const keys = fixtureKeyEnvironment();

  before(async () => {
    const work = mkdtempSync(join(tmpdir(), 'host-front-'));
    reference = startCli([
      ...['--port', '0', '--http-port', 'off', '--access-log', 'off'],
      ...['--cert-dir', join(work, 'certs'), '--data-dir', 'off'],
    ]);
    const [, upstreamPort = ''] = await reference.waitForStdout(/Listening: https port (\d+)/);
    front = await startHostFront({
      upstreamPort: Number(upstreamPort),
      upstreamCa: readFileSync(join(work, 'certs', 'ca.crt'), 'utf8'),
    });
    writeFileSync(join(work, 'front-ca.pem'), front.caPem);
    const origin = (tenant: string): string => `https://${tenant}.api.localhost:${front.port}/v1`;
    targetFile = writeTargetFile(work, 'target.json', {
      name: 'reference behind a Host-routing front',
      baseUrl: origin('acme'),
      otherTenantBaseUrl: origin('globex'),
      sandboxBaseUrl: origin('sandbox-acme'),
      // Like nginx configured for HTTPS only: nothing listens for plain HTTP.
      plainHttpBaseUrl: `http://acme.api.localhost:${await unusedPort()}/v1`,
      // The reference's own keys, by the variable names its embedded target file uses.
      credentials: readTargetFile(EMBEDDED_TARGET_FILE).credentials,
      caFile: 'front-ca.pem',
      hosts: { '*.localhost': '127.0.0.1' },
    });
  });

  after(async () => {
    await front?.close();
    reference?.kill();
    await reference?.exited;
  });

  test('the front routes by Host: globex’s key on a connection opened for acme gets globex’s customers', async () => {
    const asGlobex = (servername: string, key: string) =>
      probe({
        port: front.port,
        ca: front.caPem,
        servername,
        host: 'globex.api.localhost',
        headers: [['Authorization', `Bearer ${key}`]],
      });
    const globexKey = keys.REFERENCE_KEY_GLOBEX_PROD_FULL ?? '';
    const direct = await asGlobex('globex.api.localhost', globexKey);
    assert.equal(direct.status, 200);
    // The same answer but for the time it was made (Date may tick between the two).
    const withoutDate = ({ headers: { date: _date, ...headers }, ...answer }: typeof direct) => ({
      ...answer,
      headers,
    });
    assert.deepEqual(withoutDate(await asGlobex('acme.api.localhost', globexKey)), withoutDate(direct));
    // And acme's key there gets nothing: the tenant is still the Host's, for auth and data alike.
    const acmeKey = await asGlobex('acme.api.localhost', keys.REFERENCE_KEY_ACME_PROD_FULL ?? '');
    assert.equal(acmeKey.status, 401);
    assert.equal(acmeKey.code, 'invalid_api_key');
  });

  test('--profile default: CONFORMANT, only TENANT-SNI-HOST-MISMATCH-421 warns', async () => {
    const run = await runConformance(['--target', targetFile, '--profile', 'default'], keys);
    assertConformant(run, ['TENANT-SNI-HOST-MISMATCH-421']);
  });
});
