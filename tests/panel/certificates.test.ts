// The leaf certificate names each served tenant's panel hosts one by one (Node and Chromium refuse
// a `*.localhost` wildcard), and is made again when the set of tenants changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCertificates } from '../../reference-server/tls.ts';

function namesOf(cert: string): string[] {
  return (new X509Certificate(cert).subjectAltName ?? '').split(', ').sort();
}

test('the leaf names every panel host, the admin host and the API wildcard, and follows the tenants', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'km-tls-'));
  try {
    const first = await ensureCertificates(dir, 'localhost', ['acme']);
    assert.deepEqual(namesOf(first.cert), [
      'DNS:*.api.localhost',
      'DNS:acme.localhost',
      'DNS:admin.localhost',
      'DNS:api.localhost',
      'DNS:sandbox-acme.localhost',
    ]);
    const again = await ensureCertificates(dir, 'localhost', ['acme']);
    assert.equal(again.reused, true);
    assert.equal(again.cert, first.cert);

    const more = await ensureCertificates(dir, 'localhost', ['acme', 'globex']);
    assert.equal(more.reused, false);
    assert.ok(namesOf(more.cert).includes('DNS:sandbox-globex.localhost'));
    const fewer = await ensureCertificates(dir, 'localhost', ['globex']);
    assert.equal(fewer.reused, false, 'a tenant no longer served kept its names in the certificate');
    assert.ok(!namesOf(fewer.cert).includes('DNS:acme.localhost'));
    const leaf = new X509Certificate(fewer.cert);
    assert.equal(leaf.checkHost('globex.localhost'), 'globex.localhost');
    assert.equal(leaf.checkHost('acme.localhost'), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
