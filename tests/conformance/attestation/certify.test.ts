// Certifying an implementation end to end, as a vendor and their customer would: keygen, a run
// signed with --sign-key (under strict, which writes the bundle by default), then `verify` — of
// the bundle as written, of a copy with a changed report, with another key — and the exit codes
// of bad input. The run's report pins the certificate the server presented.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import {
  OVER_OFFERED_PROTOCOLS,
  writeTargetOf,
  runConformance,
  type ConformanceRun,
} from '../../support/conformance-run.ts';
import { startTestServer, type TestServer } from '../../support/reference-client.ts';
import { runMain, type CliExit } from '../../support/reference-cli.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const cli = (args: string[]): Promise<CliExit> => runMain(args);

let server: TestServer;
let keys: string;
let run: ConformanceRun;
let keygen: CliExit;
let bundle: string;

before(async () => {
  // Its lists page, as the embedded target's: every rule is then evaluated (a CONFORMANT bundle).
  server = await startTestServer({ customersPageSize: 2 });
  keys = scratchDirectory('signing-keys-');
  keygen = await cli(['keygen', '--out', join(keys, 'vendor')]);
  await cli(['keygen', '--out', join(keys, 'stranger')]);
  const target = writeTargetOf(server, 'reference, certified');
  // Over every protocol the server offers, as a certification should be.
  run = await runConformance(
    // A list bound given: it can change a verdict (a leak on a later page), so the certificate says it.
    [
      '--target',
      target,
      '--profile',
      'strict',
      '--sign-key',
      join(keys, 'vendor.key'),
      '--max-list-pages',
      '5',
    ],
    {
      ...fixtureKeyEnvironment(),
      ...OVER_OFFERED_PROTOCOLS,
      // Trust taken from OpenSSL's store, steered to the private CA: verify must name both sources.
      NODE_OPTIONS: '--use-openssl-ca',
      SSL_CERT_FILE: join(server.certDir, 'ca.crt'),
    },
  );
  bundle = join(run.reportDir, 'bundle');
});

after(() => server.close());

/** A copy of the bundle to tamper with. */
function copyOfBundle(): string {
  const copy = join(scratchDirectory('bundle-copy-'), 'bundle');
  cpSync(bundle, copy, { recursive: true });
  return copy;
}

describe('certify: keygen, a signed run, verify', () => {
  test('keygen writes a private key only its owner can read, and a public key', () => {
    assert.equal(keygen.code, 0, keygen.stderr);
    assert.equal(statSync(join(keys, 'vendor.key')).mode & 0o777, 0o600);
    assert.match(readFileSync(join(keys, 'vendor.pub'), 'utf8'), /^-----BEGIN PUBLIC KEY-----/);
    assert.match(keygen.stdout, /^Fingerprint: sha256:[0-9a-f]{64}$/m);
    assert.doesNotMatch(keygen.stdout, /PRIVATE KEY/);
  });

  test('keygen does not replace a key without --force', async () => {
    const again = await cli(['keygen', '--out', join(keys, 'vendor')]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already exist: choose another --out PREFIX, or replace them with --force/);
  });

  test('the run is CONFORMANT and its report pins the certificate the server presented', () => {
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(run.report?.verdict, 'CONFORMANT');
    const leaf = new X509Certificate(readFileSync(join(server.certDir, 'localhost.crt')));
    const tls = run.report?.tls ?? [];
    assert.deepEqual(
      tls.map((host) => host.field),
      ['baseUrl', 'otherTenantBaseUrl', 'sandboxBaseUrl'],
    );
    for (const host of tls) {
      assert.equal(host.fingerprint256, leaf.fingerprint256);
      assert.equal(host.subject, 'CN=*.api.localhost');
      assert.equal(host.validTo, new Date(leaf.validTo).toISOString());
      assert.deepEqual(host.alpn, { offered: ['http/1.1'], agreed: 'http/1.1' });
    }
    assert.equal(tls[0]?.host, `acme.api.localhost:${server.server.httpsPort}`);
    assert.equal(run.report?.options?.selectedRules, run.report?.rules.length);
    assert.equal(run.report?.options?.maxListPages, 5);
    assert.equal(run.report?.options?.maxListRecords, 1000);
    assert.match(
      readFileSync(join(run.reportDir, 'conformance.md'), 'utf8'),
      /lists followed to 5 pages, 1000 records/,
    );
    assert.match(run.stdout, /Bundle: .*bundle \(signed by key sha256:[0-9a-f]{64}\)/);
  });

  test('verify with the vendor’s public key: exit 0, and what the bundle certifies', async () => {
    const result = await cli(['verify', bundle, '--public-key', join(keys, 'vendor.pub')]);
    assert.equal(result.code, 0, result.stderr);
    const fingerprint = /^Fingerprint: (sha256:[0-9a-f]{64})$/m.exec(keygen.stdout)?.[1] ?? '';
    const leaf = new X509Certificate(readFileSync(join(server.certDir, 'localhost.crt')));
    assert.match(
      result.stdout.split('\n')[0] ?? '',
      /^VERIFIED: CONFORMANT — signed by sha256:[0-9a-f]{64}, a key you gave; 10 files intact and consistent\.$/,
    );
    assert.match(result.stdout, /^Verdict: +CONFORMANT \(HTTP\/1\.1 CONFORMANT; HTTP\/2 CONFORMANT\)$/m);
    assert.match(
      result.stdout,
      /^Scope: +checked over HTTP\/1\.1 and HTTP\/2 \(the target offers HTTP\/1\.1 and HTTP\/2\)/m,
    );
    assert.match(result.stdout, /^Target: +reference, certified \(a target file\)$/m);
    assert.match(result.stdout, /^Base URL: +https:\/\/acme\.api\.localhost:\d+\/v1$/m);
    assert.match(result.stdout, /^Host map: +\*\.localhost → 127\.0\.0\.1$/m);
    // Where the plain-HTTP rules probed, as the run used it: the server's plain-HTTP port, not 80.
    const plainHttp = `http://acme.api.localhost:${server.server.httpPort}/v1`;
    assert.ok(
      result.stdout.includes(`\nPlain HTTP:   ${plainHttp} (where the plain-HTTP rules probed)\n`),
      result.stdout,
    );
    assert.ok(
      result.stdout.includes(
        `  ! Plain HTTP was probed at ${plainHttp}, not at the base URL's host on port 80 (http://acme.api.localhost)`,
      ),
    );
    // The run went to this machine, trusting a CA of its own: a customer is told.
    assert.match(
      result.stdout,
      /^ {2}! Host map: \*\.localhost was sent to 127\.0\.0\.1, a loopback or private address/m,
    );
    assert.match(result.stdout, /^ {2}! Trust came from a private CA/m);
    // Every source of trust the run's processes used, named (NODE_OPTIONS=--use-openssl-ca SSL_CERT_FILE=…).
    assert.match(result.stdout, /^Trust: +--use-openssl-ca: Node trusts OpenSSL's store of CAs$/m);
    assert.ok(
      result.stdout.includes(
        `Trust:        SSL_CERT_FILE=${join(server.certDir, 'ca.crt')}: OpenSSL's CA file`,
      ),
      result.stdout,
    );
    // What rests on the vendor's word (no keyMinting: the revoked key among it), from the statement.
    assert.match(
      result.stdout,
      /^Vendor's word: credentials\.revoked \(target file\): the vendor's word that the key was revoked/m,
    );
    assert.match(result.stdout, /^Vendor's word: hosts \(target file\)/m);
    assert.match(
      result.stdout,
      /^Badge: .*CONFORMANT · strict · \d{4}-\d\d-\d\d · revoked key: vendor's word\]/m,
    );
    assert.ok(
      result.stdout.includes(
        `baseUrl acme.api.localhost:${server.server.httpsPort}: SHA-256 ${leaf.fingerprint256}`,
      ),
    );
    assert.match(result.stdout, /^Profile: +strict$/m);
    assert.ok(result.stdout.includes(`Time:         ${run.report?.startedAt ?? '?'}`));
    assert.ok(result.stdout.includes(`Signature:    by ${fingerprint}, a key you gave`), result.stdout);
    const bare = await cli(['verify', bundle]);
    assert.equal(bare.code, 4, bare.stderr);
    assert.ok(
      bare.stdout.startsWith(`NOT TRUSTED\n  intact, but signed by ${fingerprint}, a key you did not give`),
      bare.stdout,
    );
  });

  test('a report changed after signing: exit 1, the file named', async () => {
    const copy = copyOfBundle();
    const file = join(copy, 'conformance.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('CONFORMANT', 'NOT CONFORMANT'));
    const result = await cli(['verify', copy, '--public-key', join(keys, 'vendor.pub')]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^NOT VERIFIED: /m);
    assert.match(
      result.stderr,
      /^ {2}- conformance\.md was changed: its SHA-256 is [0-9a-f]{64}, SHA256SUMS says [0-9a-f]{64}\.$/m,
    );
  });

  test('another key: exit 4, NOT TRUSTED first, naming both keys', async () => {
    const result = await cli(['verify', bundle, '--public-key', join(keys, 'stranger.pub')]);
    assert.equal(result.code, 4);
    assert.equal(result.stdout.split('\n')[0], 'NOT TRUSTED');
    assert.match(
      result.stdout.split('\n')[1] ?? '',
      /^ {2}intact, but signed by sha256:[0-9a-f]{64}, not by a key you gave \(sha256:[0-9a-f]{64}\)/,
    );
  });

  test('an HTTP/1.1-only strict run of the HTTP/2-capable server is partial, so INCOMPLETE: labelled in the console, the reports, the badge and verify', async () => {
    const target = writeTargetOf(server, 'reference, h1 only');
    const partial = await runConformance(
      [
        '--target',
        target,
        '--profile',
        'strict',
        '--protocols',
        'h1',
        '--sign-key',
        join(keys, 'vendor.key'),
      ],
      fixtureKeyEnvironment(),
    );
    // Every rule passed over HTTP/1.1, but HTTP/2 was left out: under strict never CONFORMANT.
    assert.equal(partial.report?.verdict, 'INCOMPLETE');
    // Every rule but AUTH-COOKIE-NOT-CREDENTIAL, not applicable: the reference sets no cookie.
    assert.equal(partial.report?.summary.pass, (partial.report?.rules.length ?? 0) - 1);
    assert.equal(partial.exitCode, 0, partial.stderr);
    assert.deepEqual(partial.report?.scope?.protocolsChecked, ['HTTP/1.1']);
    assert.deepEqual(partial.report?.scope?.protocolsOffered, ['HTTP/1.1', 'HTTP/2']);
    assert.deepEqual(partial.report?.tls?.[0]?.protocols, ['HTTP/1.1', 'HTTP/2']);
    const label = 'INCOMPLETE · HTTP/1.1 only';
    assert.match(
      partial.stdout,
      new RegExp(`^VERDICT: ${label} \\(reference, h1 only, profile strict\\)$`, 'm'),
    );
    const partialBundle = join(partial.reportDir, 'bundle');
    for (const file of ['conformance.md', 'conformance.html', 'junit.xml', 'badge.svg'])
      assert.ok(readFileSync(join(partialBundle, file), 'utf8').includes(label), file);
    const result = await cli(['verify', partialBundle, '--public-key', join(keys, 'vendor.pub')]);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.startsWith(`VERIFIED: ${label} — signed by`), result.stdout);
    assert.match(result.stdout, /^Scope: +PARTIAL: HTTP\/2 was not checked, but the target offers it/m);
    assert.match(result.stdout, /Under --profile strict a partial run is never CONFORMANT/);
  });

  test('bad input: exit 2 with the fix, never a stack trace', async () => {
    const reportsNotBundle = await cli(['verify', run.reportDir]);
    assert.equal(reportsNotBundle.code, 2);
    assert.ok(
      reportsNotBundle.stderr.includes(`holds reports, not a bundle: give ${bundle}`),
      reportsNotBundle.stderr,
    );
    const missing = await cli(['verify', join(keys, 'nothing-here')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /does not exist: give the bundle directory a run wrote/);
    const noKey = await cli(['verify', bundle, '--public-key', join(keys, 'absent.pub')]);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /Cannot read the key file .*absent\.pub \(ENOENT\): check the path/);
    const privateKey = await cli(['verify', bundle, '--public-key', join(keys, 'vendor.key')]);
    assert.equal(privateKey.code, 2);
    assert.match(privateKey.stderr, /is a private key: verify needs only the public key/);
    const notAKey = await cli(['verify', bundle, '--public-key', join(bundle, 'SHA256SUMS')]);
    assert.equal(notAKey.code, 2);
    assert.match(notAKey.stderr, /is not a PEM public key: give an Ed25519 public key in PEM/);
    for (const result of [reportsNotBundle, missing, noKey, privateKey, notAKey])
      assert.doesNotMatch(result.stderr, /^\s+at /m);
  });

  test('run refuses an unusable signing key before anything runs, without showing the key', async () => {
    const wrong = await cli(['run', '--sign-key', join(keys, 'vendor.pub')]);
    assert.equal(wrong.code, 2);
    assert.match(
      wrong.stderr,
      /^--sign-key: .*vendor\.pub is not a PEM private key: give an Ed25519 private key in PEM/m,
    );
    assert.doesNotMatch(wrong.stdout, /Conformance run/);
    const encrypted = join(keys, 'encrypted.key');
    writeFileSync(
      encrypted,
      generateKeyPairSync('ed25519').privateKey.export({
        type: 'pkcs8',
        format: 'pem',
        cipher: 'aes-256-cbc',
        passphrase: 'a passphrase',
      }),
    );
    const withPassphrase = await cli(['run', '--sign-key', encrypted]);
    assert.equal(withPassphrase.code, 2);
    assert.match(withPassphrase.stderr, /is encrypted with a passphrase, which a run cannot ask for/);
    const both = await cli(['run', '--bundle', '--no-bundle']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--no-bundle cannot be given with --bundle or --sign-key/);
  });

  test('verify and keygen answer --help with their exit codes', async () => {
    for (const command of ['verify', 'keygen']) {
      const help = await cli([command, '--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, new RegExp(`^Usage: tenant-auth-conformance ${command}`));
      assert.match(help.stdout, /Exit codes/);
    }
  });
});
