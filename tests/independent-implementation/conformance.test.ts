// The guard against false fails that a reference-only test cannot give: a second, independently
// written correct implementation (./server.ts: Fastify, its own key format, response shape,
// sandbox host and certificates, plain HTTP not listening) must be CONFORMANT under both
// profiles, with every rule passed — none warned, none left not evaluated.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConformance } from '../support/conformance-run.ts';
import { scanDirectory, secretForms } from '../support/artifact-scan.ts';
import { startIndependentServer, type IndependentServer } from './server.ts';
import { assertConformant, unusedPort, writeTargetFile } from './run-support.ts';

describe('an independent implementation of the spec (Fastify)', () => {
  let server: IndependentServer;
  let targetFile: string;
  let keyEnvironment: Record<string, string>;

  before(async () => {
    server = await startIndependentServer();
    const work = mkdtempSync(join(tmpdir(), 'independent-implementation-'));
    writeFileSync(join(work, 'ca.pem'), server.caPem);
    const { keys } = server;
    keyEnvironment = {
      INDEPENDENT_ACME_LIVE_FULL: keys.acmeLiveFull,
      INDEPENDENT_ACME_LIVE_READ_ONLY: keys.acmeLiveReadOnly,
      INDEPENDENT_ACME_LIVE_INVOICES_ONLY: keys.acmeLiveInvoicesOnly,
      INDEPENDENT_ACME_LIVE_REVOKED: keys.acmeLiveRevoked,
      INDEPENDENT_ACME_TEST_FULL: keys.acmeTestFull,
      INDEPENDENT_GLOBEX_LIVE_FULL: keys.globexLiveFull,
      INDEPENDENT_ACME_LIVE_PROBE: keys.acmeLiveProbe,
    };
    const origin = (host: string): string => `https://${host}.localhost:${server.port}/v1`;
    targetFile = writeTargetFile(work, 'target.json', {
      name: 'independent implementation (Fastify)',
      baseUrl: origin('acme.api'),
      otherTenantBaseUrl: origin('globex.api'),
      sandboxBaseUrl: origin('acme.sandbox.api'),
      // This deployment serves HTTPS only: plain HTTP finds nothing listening.
      plainHttpBaseUrl: `http://acme.api.localhost:${await unusedPort()}/v1`,
      credentials: {
        fullAccess: 'INDEPENDENT_ACME_LIVE_FULL',
        readOnly: 'INDEPENDENT_ACME_LIVE_READ_ONLY',
        noCustomersPermission: 'INDEPENDENT_ACME_LIVE_INVOICES_ONLY',
        revoked: 'INDEPENDENT_ACME_LIVE_REVOKED',
        sandbox: 'INDEPENDENT_ACME_TEST_FULL',
        otherTenant: 'INDEPENDENT_GLOBEX_LIVE_FULL',
        probe: 'INDEPENDENT_ACME_LIVE_PROBE',
      },
      caFile: 'ca.pem',
      hosts: { '*.localhost': '127.0.0.1' },
    });
  });

  after(async () => {
    await server.close();
  });

  for (const profile of ['default', 'strict']) {
    test(`--profile ${profile}: CONFORMANT, every rule passed, no key in any report`, async () => {
      const run = await runConformance(['--target', targetFile, '--profile', profile], keyEnvironment);
      assertConformant(run);
      assert.equal(run.report?.profile, profile);
      const { findings, filesScanned } = scanDirectory(run.reportDir, secretForms(keyEnvironment));
      assert.ok(filesScanned > 0, 'the run wrote reports');
      assert.deepEqual(findings, []);
    });
  }
});
