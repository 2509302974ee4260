// HTTP/1.1 as clients reach it. A deployment whose TLS front routes connections that agreed
// ALPN `http/1.1` (what curl --http1.1, Python's requests and Go's net/http without HTTP/2 offer)
// to a path that skips the tenant check: another tenant's key is served on this tenant's host
// there, and nowhere else. The suite checks the isolation and authentication MUSTs on connections
// offering no ALPN and again on connections offering `http/1.1`: NOT CONFORMANT, by
// TENANT-CROSS-KEY-REJECTED, the failure naming the connection kind. A direct request first
// shows the shape: refused without ALPN, served with it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { runConformance } from '../support/conformance-run.ts';
import { writeIndependentTarget } from './independent-target.ts';
import { startIndependentServer, type IndependentServer } from './server.ts';

let server: IndependentServer;

before(async () => {
  server = await startIndependentServer({ http2: true, crossTenantOverAlpnHttp11: true });
});
after(async () => {
  await server.close();
});

/** globex's key on acme's host, offering `alpn` (or none): the status. */
function crossKey(alpn: string[] | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        servername: 'acme.api.localhost',
        ca: server.caPem,
        path: '/v1/customers',
        agent: false,
        headers: {
          Host: 'acme.api.localhost',
          Authorization: `Bearer ${server.keys.globexLiveFull}`,
          'Content-Type': 'application/json',
        },
        ...(alpn ? { ALPNProtocols: alpn } : {}),
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('the shape: refused on a connection offering no ALPN, served on one offering http/1.1', async () => {
  assert.equal(await crossKey(undefined), 401);
  assert.equal(await crossKey(['http/1.1']), 200);
});

test('NOT CONFORMANT by TENANT-CROSS-KEY-REJECTED, over ALPN http/1.1', async () => {
  const target = await writeIndependentTarget(server);
  const run = await runConformance(['--target', target.file], target.env);
  assert.equal(run.report?.verdict, 'NOT CONFORMANT', run.stdout);
  const rule = run.report?.rules.find((candidate) => candidate.id === 'TENANT-CROSS-KEY-REJECTED');
  assert.equal(rule?.verdict, 'fail', rule?.message);
  assert.match(rule?.message ?? '', /on TLS connections offering ALPN http\/1\.1/);
  // The report says which connection kinds each rule was checked over (reach.checkedOver).
  const kindsOf = (id: string) =>
    run.report?.reach?.checkedOver?.find((group) => group.rules.includes(id))?.kinds;
  assert.ok(kindsOf('AUTH-MISSING-HEADER')?.includes('HTTP/1.1, ALPN http/1.1 offered'));
  assert.ok(kindsOf('AUTH-MISSING-HEADER')?.includes('HTTP/1.1, no ALPN offered'));
  assert.ok(kindsOf('AUTH-MISSING-HEADER-401')?.includes('HTTP/1.1, no ALPN offered'));
  assert.ok(!kindsOf('AUTH-MISSING-HEADER-401')?.includes('HTTP/1.1, ALPN http/1.1 offered'));
  assert.match(
    run.stdout,
    /Rules by the connections they were checked over: \[HTTP\/1\.1, no ALPN offered; HTTP\/1\.1, ALPN http\/1\.1 offered/,
  );
});
