// No configured key value may reach any artifact of a run: conformance.json/.md/.html, junit.xml,
// exchanges.har, Playwright's HTML report, attachments, stdout or stderr — least of all from a run
// full of failures, where evidence is recorded, every exchange goes to the HAR, and Playwright's
// call logs (which list request headers) are attached to failed steps. Keys appear there only as
// the names of their variables. (With the KeyNamer's keys removed, tests/conformance/report/report-files
// shows that the same scan finds a key in each report file.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import { REPORT_FILES } from '../../../conformance/report/write-reports.ts';
import { runConformance, type ConformanceRun } from '../../support/conformance-run.ts';
import { scanDirectory, scanText, secretForms } from '../../support/artifact-scan.ts';
import { startTestServer, type TestServer } from '../../support/reference-client.ts';
import { scratchDirectory } from '../../support/scratch.ts';

let server: TestServer;
/** A second server whose CA the target does not trust: every request to it fails in TLS. */
let untrusted: TestServer;
let run: ConformanceRun;
const keys = fixtureKeyEnvironment();
/** The key the run signs its bundle with: a secret too, which must never be copied or printed. */
const signingKeyPem = generateKeyPairSync('ed25519')
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const signingKeyBody = signingKeyPem.split('\n')[1] ?? '';

before(async () => {
  server = await startTestServer();
  untrusted = await startTestServer();
  const https = server.server.httpsPort;
  const work = scratchDirectory('secrets-target-');
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
  const signingKey = join(work, 'signing.key');
  writeFileSync(signingKey, signingKeyPem, { mode: 0o600 });
  // Strict writes the bundle by default; signed, it also holds the envelope and the public key.
  run = await runConformance(['--target', file, '--sign-key', signingKey], keys);
});

after(async () => {
  await Promise.all([server.close(), untrusted.close()]);
});

test('the misconfigured target fails, with evidence recorded', () => {
  assert.equal(run.exitCode, 1, run.stderr);
  assert.equal(run.report?.verdict, 'NOT CONFORMANT');
  const failed = run.report?.rules.filter((rule) => rule.verdict === 'fail') ?? [];
  // Each failure follows from a key given in the wrong place of the target file above; the roles
  // given one key (noCustomersPermission and sandbox) are not evaluated instead (target-roles.ts).
  assert.deepEqual(
    failed.map((rule) => rule.id),
    ['KEY-VALID-SERVED', 'KEY-REVOKED-REJECTED', 'PERM-READ-ONLY-READS'],
  );
  for (const rule of failed) assert.ok((rule.evidence ?? []).length > 0, `${rule.id} has its evidence`);
});

test('no key value, plain or base64, appears in any file the run wrote or in its output', () => {
  const forms = { ...secretForms(keys), 'the signing key': signingKeyBody };
  assert.ok(signingKeyBody.length >= 40, 'the signing key has a body to search for');
  for (const name of Object.values(REPORT_FILES)) {
    assert.ok(existsSync(join(run.reportDir, name)), `${name} was written (and so scanned)`);
    assert.ok(existsSync(join(run.reportDir, 'bundle', name)), `bundle/${name} was written (and so scanned)`);
  }
  for (const name of ['statement.json', 'statement.dsse.json', 'signer.pub.pem', 'SHA256SUMS', 'badge.svg'])
    assert.ok(existsSync(join(run.reportDir, 'bundle', name)), `bundle/${name} was written (and so scanned)`);
  const { findings, filesScanned } = scanDirectory(run.reportDir, forms);
  assert.ok(
    filesScanned >= 18,
    `expected the reports and the bundle to be there, scanned ${filesScanned} files`,
  );
  findings.push(...scanText('stdout', run.stdout, forms), ...scanText('stderr', run.stderr, forms));
  assert.deepEqual(findings, []);
});

test('the reports show the keys of requests by their variable names', () => {
  const har = readFileSync(join(run.reportDir, REPORT_FILES.har), 'utf8');
  // The target file gives fullAccess as REFERENCE_KEY_GLOBEX_PROD_FULL: that is the name shown.
  assert.ok(har.includes('Bearer $REFERENCE_KEY_GLOBEX_PROD_FULL'));
  const html = readFileSync(join(run.reportDir, REPORT_FILES.html), 'utf8');
  assert.match(html, /Bearer \$REFERENCE_KEY_[A-Z_]+/);
});

test('the scan itself finds a key where there is one (so a clean result means something)', () => {
  const forms = secretForms(keys);
  const dir = scratchDirectory('scan-check-');
  writeFileSync(
    join(dir, 'leak.txt'),
    `Authorization: Basic ${Buffer.from(`${keys.REFERENCE_KEY_ACME_PROD_FULL}:`).toString('base64')}`,
  );
  assert.equal(scanDirectory(dir, forms).findings.length, 1);
});
