// The registry's client tells a certificate it does not trust from a registry it cannot reach: the
// first names the CA option (and the CA a kit-served registry's banner names), the second the
// network. Both are exit 3 for the commands; only their messages differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeCertificates } from '../independent-implementation/certificates.ts';
import { scratchDirectory } from '../support/scratch.ts';
import { RegistryUnreachable, RegistryUntrusted, registryClient } from '../../registry/client.ts';

test("a registry whose certificate is not trusted: its own message, naming --ca-file and the banner's CA", async () => {
  const certificates = await makeCertificates('registry test CA', ['localhost']);
  const server = createServer({ key: certificates.key, cert: certificates.cert }, (_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://localhost:${(server.address() as AddressInfo).port}`;
  try {
    for (const caOption of [undefined, '--publish-ca-file']) {
      const client = registryClient(base, caOption === undefined ? {} : { caOption });
      const refused = await client.get('/api/v1/health').then(
        () => undefined,
        (error: unknown) => error,
      );
      await client.close();
      assert.ok(refused instanceof RegistryUntrusted, String(refused));
      assert.ok(refused instanceof RegistryUnreachable, 'exit 3, as the commands document');
      assert.match(refused.message, /^Cannot trust the registry's certificate at https:\/\/localhost:\d+ \(/);
      assert.ok(refused.message.includes(`${caOption ?? '--ca-file'} FILE`), refused.message);
      assert.ok(refused.message.includes('CA: .certs/ca.crt'), refused.message);
      assert.doesNotMatch(refused.message, /Cannot reach/);
    }
    // With the CA given, the same registry answers.
    const caFile = join(scratchDirectory('registry-trust-'), 'ca.crt');
    writeFileSync(caFile, certificates.caPem);
    const trusting = registryClient(base, { caFile });
    assert.deepEqual(await trusting.get('/api/v1/health'), { status: 200, json: { ok: true } });
    await trusting.close();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a registry that cannot be reached is said so, not a certificate problem', async () => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const client = registryClient(`https://127.0.0.1:${port}`, {});
  const refused = await client.get('/api/v1/health').then(
    () => undefined,
    (error: unknown) => error,
  );
  await client.close();
  assert.ok(
    refused instanceof RegistryUnreachable && !(refused instanceof RegistryUntrusted),
    String(refused),
  );
  assert.match(refused.message, /^Cannot reach the registry at https:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\.$/);
});
