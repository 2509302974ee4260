// Certificates: the API's leaf names the API wildcard and the admin host only, so its size does
// not grow with the tenants; each served tenant's panel host gets a leaf of its own on first use
// (Node and Chromium refuse a `*.localhost` wildcard), and no other name does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkServerIdentity, connect } from 'node:tls';
import { ensureCertificates } from '../../../reference-server/listeners/certificates.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../../reference-server/store/fixtures.ts';
import { startReferenceServer } from '../../../reference-server/server.ts';
import type { Fixtures } from '../../../schemas/generated/fixtures.ts';
import { scratchDirectory } from '../../support/scratch.ts';

function namesOf(cert: string): string[] {
  return (new X509Certificate(cert).subjectAltName ?? '').split(', ').sort();
}

test('the API leaf names the API wildcard and the admin host, and is reused', async () => {
  const dir = scratchDirectory('km-tls-');
  try {
    const first = await ensureCertificates(dir, 'localhost');
    assert.deepEqual(namesOf(first.cert), [
      'DNS:*.api.localhost',
      'DNS:admin.localhost',
      'DNS:api.localhost',
    ]);
    const again = await ensureCertificates(dir, 'localhost');
    assert.equal(again.reused, true);
    assert.equal(again.cert, first.cert);
    const panel = new X509Certificate((await first.leafFor('acme.localhost')).cert);
    assert.equal(panel.checkHost('acme.localhost'), 'acme.localhost');
    assert.equal(panel.checkHost('globex.localhost'), undefined);
    assert.ok(
      panel.verify(new X509Certificate(readFileSync(first.caPath)).publicKey),
      'signed by the same CA',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Whether a client verifying the chain and the host name would accept what `servername` is served. */
function verifies(port: number, servername: string, ca: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ca, rejectUnauthorized: false }, () => {
      const nameMatches = checkServerIdentity(servername, socket.getPeerCertificate()) === undefined;
      resolve(socket.authorized && nameMatches);
      socket.end();
    });
    socket.once('error', reject);
  });
}

/** Fixtures with many tenants, each with no keys: what a large multi-tenant deployment looks like. */
function manyTenants(count: number): Fixtures {
  const base = loadFixtures(DEFAULT_FIXTURES_FILE);
  const tenants = Array.from({ length: count }, (_, index) => ({
    id: `tenant-${index}`,
    name: `Tenant ${index}`,
    apiKeysEnabled: true,
    keys: [],
    customers: { production: [], sandbox: [] },
  }));
  return { ...base, tenants: [...base.tenants, ...tenants] };
}

test('with 10 000 tenants the server starts, and a panel host of any served tenant verifies; an unknown one does not', async () => {
  const dir = scratchDirectory('km-tls-many-');
  const server = await startReferenceServer({
    host: '127.0.0.1',
    httpsPort: 0,
    httpPort: null,
    domain: 'localhost',
    fixtures: manyTenants(10_000),
    certDir: dir,
  });
  try {
    const ca = readFileSync(server.caPath, 'utf8');
    for (const host of [
      'tenant-9999.localhost',
      'sandbox-acme.localhost',
      'acme.api.localhost',
      'admin.localhost',
    ]) {
      assert.equal(
        await verifies(server.httpsPort, host, ca),
        true,
        `${host} must be served a certificate valid for it`,
      );
    }
    const unknown = await verifies(server.httpsPort, 'no-such-tenant.localhost', ca);
    assert.equal(unknown, false, 'no certificate is made for a tenant that is not served');
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two certificate directories make two CAs of different names, each the issuer of its own leaf', async () => {
  // A client that trusts both (a user's NODE_EXTRA_CA_CERTS and a target's caFile) finds a leaf's
  // issuer by name: with one name for two CAs it may check the leaf against the wrong one.
  const dirs = [scratchDirectory('km-tls-'), scratchDirectory('km-tls-')];
  try {
    const made = await Promise.all(dirs.map((dir) => ensureCertificates(dir, 'localhost')));
    const caOf = (certificates: { caPath: string }) => new X509Certificate(readFileSync(certificates.caPath));
    assert.notEqual(caOf(made[0]!).subject, caOf(made[1]!).subject);
    for (const certificates of made)
      assert.equal(new X509Certificate(certificates.cert).issuer, caOf(certificates).subject);
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
});

test('a CA made before CAs had names of their own is replaced once, and its leaf with it', async () => {
  const dir = scratchDirectory('km-tls-');
  try {
    // A directory as the kit left it before: a CA of the name every CA had.
    const { generate } = await import('selfsigned');
    const shared = await generate([{ name: 'commonName', value: 'Tenant API conformance kit local CA' }], {
      keyType: 'ec',
      curve: 'P-256',
      extensions: [{ name: 'basicConstraints', cA: true, critical: true }],
    });
    writeFileSync(join(dir, 'ca.crt'), shared.cert);
    writeFileSync(join(dir, 'ca.key'), shared.private);
    const replaced = await ensureCertificates(dir, 'localhost');
    assert.equal(replaced.reused, false);
    const ca = new X509Certificate(readFileSync(replaced.caPath));
    assert.match(ca.subject, /^CN=Tenant API conformance kit local CA [0-9a-f]{12}$/);
    assert.equal(new X509Certificate(replaced.cert).issuer, ca.subject);
    // Once: the next start reuses the new CA.
    const again = await ensureCertificates(dir, 'localhost');
    assert.equal(again.reused, true);
    assert.equal(readFileSync(again.caPath, 'utf8'), readFileSync(replaced.caPath, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
