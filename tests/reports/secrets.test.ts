// No configured key value may reach any artifact of a run: reports, JUnit, the HTML report,
// attachments, stdout or stderr — least of all from a run full of failures, where evidence is
// recorded and Playwright's call logs (which list request headers) are attached to failed steps.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureKeyEnvironment } from '../../conformance/target.ts';
import { runConformance, type ConformanceRun } from '../support/conformance-run.ts';
import { scanDirectory, scanText, secretForms } from '../support/artifact-scan.ts';
import { startTestServer, type TestServer } from '../support/reference-client.ts';

let server: TestServer;
/** A second server whose CA the target does not trust: every request to it fails in TLS. */
let untrusted: TestServer;
let run: ConformanceRun;
const keys = fixtureKeyEnvironment();

before(async () => {
  server = await startTestServer();
  untrusted = await startTestServer();
  const https = server.server.httpsPort;
  const work = mkdtempSync(join(tmpdir(), 'secrets-target-'));
  const file = join(work, 'target.json');
  // A misconfigured target: keys in the wrong roles make many rules fail with evidence; an
  // unreachable other tenant, and a sandbox whose certificate is not trusted, make Playwright's
  // own requests fail with the keys in their call logs.
  writeFileSync(
    file,
    JSON.stringify({
      name: 'misconfigured target',
      baseUrl: `https://acme.api.localhost:${https}/v1`,
      otherTenantBaseUrl: 'https://globex.api.localhost:9/v1',
      sandboxBaseUrl: `https://sandbox-acme.api.localhost:${untrusted.server.httpsPort}/v1`,
      plainHttpBaseUrl: `http://acme.api.localhost:${server.server.httpPort}/v1`,
      credentials: {
        fullAccess: 'REFERENCE_KEY_GLOBEX_PROD_FULL',
        readOnly: 'REFERENCE_KEY_ACME_PROD_REVOKED',
        noCustomersPermission: 'REFERENCE_KEY_ACME_PROD_FULL',
        revoked: 'REFERENCE_KEY_ACME_PROD_READ',
        sandbox: 'REFERENCE_KEY_ACME_PROD_FULL',
        otherTenant: 'REFERENCE_KEY_GLOBEX_PROD_READ',
        probe: 'REFERENCE_KEY_ACME_PROD_FULL',
      },
      caFile: join(server.certDir, 'ca.crt'),
      hosts: { '*.localhost': '127.0.0.1' },
      profile: 'strict',
    }),
  );
  run = await runConformance(['--target', file], keys);
});

after(async () => {
  await Promise.all([server.close(), untrusted.close()]);
});

test('the misconfigured target fails, with evidence recorded', () => {
  assert.equal(run.exitCode, 1, run.stderr);
  assert.equal(run.report?.verdict, 'NOT CONFORMANT');
  const failed = run.report?.rules.filter((rule) => rule.verdict === 'fail') ?? [];
  assert.ok(failed.length >= 5, `expected many failures, got ${failed.map((rule) => rule.id).join(', ')}`);
  assert.ok(failed.some((rule) => (rule.evidence ?? []).length > 0));
});

test('no key value, plain or base64, appears in any file the run wrote or in its output', () => {
  const forms = secretForms(keys);
  const { findings, filesScanned } = scanDirectory(run.reportDir, forms);
  assert.ok(filesScanned >= 5, `expected the reports to be there, scanned ${filesScanned} files`);
  findings.push(...scanText('stdout', run.stdout, forms), ...scanText('stderr', run.stderr, forms));
  assert.deepEqual(findings, []);
});

test('the scan itself finds a key where there is one (so a clean result means something)', () => {
  const forms = secretForms(keys);
  const dir = mkdtempSync(join(tmpdir(), 'scan-check-'));
  writeFileSync(join(dir, 'leak.txt'), `Authorization: Basic ${Buffer.from(`${keys.REFERENCE_KEY_ACME_PROD_FULL}:`).toString('base64')}`);
  assert.equal(scanDirectory(dir, forms).findings.length, 1);
});
