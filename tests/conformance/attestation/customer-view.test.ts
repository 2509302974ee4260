// What a customer needs to judge a claim, shown by `verify`: the target's host map and CA file with
// a warning where they make the run a local one, where the plain-HTTP rules probed, --expect-base-url,
// and --check-live comparing the certificate a host presents now with the bundle's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { tlsEvidence as tls } from '../../support/tls-evidence.ts';
import {
  vendor,
  report,
  bundleOf,
  read,
  reseal,
  rerender,
  verifyCli,
  publicKeyFile,
} from '../../support/forger.ts';
import { scratchDirectory } from '../../support/scratch.ts';

test('a run relabelled as a production deployment shows its host map and CA file, warns, and fails --expect-base-url', async (t) => {
  const relabelled = report({
    target: {
      name: 'Acme Corp production',
      mode: 'file',
      baseUrl: 'https://api.acme-corp.example/v1',
      hosts: { '*.acme-corp.example': '127.0.0.1' },
      caFile: '/home/vendor/.certs/ca.crt',
    },
    certificate: {
      ...tls(['HTTP/1.1', 'HTTP/2'], 'api.acme-corp.example:443'),
      subject: 'CN=Reference CA',
      issuer: 'CN=Reference CA',
    },
  });
  const directory = bundleOf(relabelled);
  const key = publicKeyFile(vendor.publicKey);
  const shown = await verifyCli(t, [directory, '--public-key', key]);
  assert.equal(shown.code, 0, shown.err);
  for (const line of [
    /^Target: +Acme Corp production \(a target file\)$/m,
    /^Base URL: +https:\/\/api\.acme-corp\.example\/v1$/m,
    /^Host map: +\*\.acme-corp\.example → 127\.0\.0\.1$/m,
    /^CA file: +\/home\/vendor\/\.certs\/ca\.crt$/m,
    /^ {2}baseUrl api\.acme-corp\.example:443: SHA-256 (AB:){31}AB$/m,
    /^ {4}issuer CN=Reference CA; subject CN=Reference CA; .*offers HTTP\/1\.1, HTTP\/2$/m,
    /^ {2}! Host map: \*\.acme-corp\.example was sent to 127\.0\.0\.1, a loopback or private address/m,
    /^ {2}! Trust came from a private CA \(\/home\/vendor\/\.certs\/ca\.crt\)/m,
    /^ {2}! The certificate of api\.acme-corp\.example:443 is self-signed/m,
  ])
    assert.match(shown.out, line);
  const expected = await verifyCli(t, [
    directory,
    '--public-key',
    key,
    '--expect-base-url',
    'https://api.acme.example/v1',
  ]);
  assert.equal(expected.code, 1);
  assert.match(
    expected.err,
    /the run checked https:\/\/api\.acme-corp\.example\/v1, not the expected base URL https:\/\/api\.acme\.example\/v1\./,
  );
  const same = await verifyCli(t, [
    directory,
    '--public-key',
    key,
    '--expect-base-url',
    'https://api.acme-corp.example/v1',
  ]);
  assert.equal(same.code, 0, same.err);
});

test('a run whose plain-HTTP probes went to a closed port shows where, and warns; that place edited to the default, re-signed, is refused', async (t) => {
  const directory = bundleOf(
    report({
      target: {
        name: 'acme staging',
        mode: 'file',
        baseUrl: 'https://api.acme.example/v1',
        plainHttpBaseUrl: 'http://api.acme.example:9/v1',
      },
    }),
  );
  const key = publicKeyFile(vendor.publicKey);
  const shown = await verifyCli(t, [directory, '--public-key', key]);
  assert.equal(shown.code, 0, shown.err);
  assert.match(
    shown.out,
    /^Base URL: +https:\/\/api\.acme\.example\/v1\nPlain HTTP: +http:\/\/api\.acme\.example:9\/v1 \(where the plain-HTTP rules probed\)$/m,
  );
  assert.match(
    shown.out,
    /^ {2}! Plain HTTP was probed at http:\/\/api\.acme\.example:9\/v1, not at the base URL's host on port 80 \(http:\/\/api\.acme\.example\)/m,
  );

  // The forger makes the report say the default, to lose the warning, and re-signs.
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  forged.target.plainHttpBaseUrl = 'http://api.acme.example/v1';
  rerender(directory, forged);
  reseal(directory, vendor.privateKey);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems, ["statement.json's predicate does not match conformance.json in: target."]);
  const refused = await verifyCli(t, [directory, '--public-key', key]);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /^NOT VERIFIED: .*\n.*predicate does not match conformance\.json in: target\./m);
});

test('--check-live compares the certificate a host presents now with the bundle’s', async (t) => {
  const work = scratchDirectory('live-check-');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ed25519',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-days',
      '1',
      '-keyout',
      join(work, 'k.pem'),
      '-out',
      join(work, 'c.pem'),
    ],
    { stdio: 'ignore' },
  );
  const server = createServer(
    { key: readFileSync(join(work, 'k.pem')), cert: readFileSync(join(work, 'c.pem')) },
    (_request, response) => response.end(),
  );
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  t.after(() => server.close());
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const live = new X509Certificate(readFileSync(join(work, 'c.pem'))).fingerprint256;
  const host = `localhost:${port}`;
  const key = publicKeyFile(vendor.publicKey);
  // The report's base URL is the host whose certificate it records (verify checks they agree).
  const target = { name: 'acme staging', mode: 'file' as const, baseUrl: `https://${host}/v1` };
  const matching = bundleOf(
    report({ target, certificate: { ...tls(['HTTP/1.1'], host), fingerprint256: live } }),
  );
  const ok = await verifyCli(t, [matching, '--public-key', key, '--check-live']);
  assert.equal(ok.code, 0, ok.err);
  assert.match(
    ok.out,
    /^Live check: +every recorded host presents the bundle's certificate and protocols now$/m,
  );
  const other = bundleOf(report({ target, certificate: tls(['HTTP/1.1', 'HTTP/2'], host) }));
  const differs = await verifyCli(t, [other, '--public-key', key, '--check-live']);
  assert.equal(differs.code, 1);
  assert.ok(
    differs.err.includes(
      `live: ${host} presents certificate SHA-256 ${live}; the bundle's run saw ${tls([]).fingerprint256}.`,
    ),
    differs.err,
  );
  assert.ok(
    differs.err.includes(
      `live: ${host} does not offer HTTP/2 by ALPN now; the bundle's run found HTTP/1.1 and HTTP/2.`,
    ),
  );
  // A run whose host map sent a name that resolves nowhere (an .invalid name) to this server: the
  // customer's own resolution cannot reach it; --via-host-map connects where the run did.
  const mappedHost = `api.acme.invalid:${port}`;
  const mapped = bundleOf(
    report({
      certificate: { ...tls(['HTTP/1.1'], mappedHost), fingerprint256: live },
      target: {
        name: 'acme staging',
        mode: 'file',
        baseUrl: `https://${mappedHost}/v1`,
        hosts: { '*.acme.invalid': '127.0.0.1' },
      },
    }),
  );
  const unresolved = await verifyCli(t, [mapped, '--public-key', key, '--check-live']);
  assert.equal(unresolved.code, 1);
  assert.match(unresolved.err, new RegExp(`live: ${mappedHost.replace('.', '\\.')}: cannot be reached now`));
  const viaMap = await verifyCli(t, [mapped, '--public-key', key, '--check-live', '--via-host-map']);
  assert.equal(viaMap.code, 0, viaMap.err);
  assert.equal(
    (await verifyCli(t, [mapped, '--via-host-map'])).code,
    2,
    '--via-host-map alone is a usage error',
  );
});
