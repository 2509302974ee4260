// The registry as a user runs it: `registry publisher` prints a token once, `registry serve` starts
// on the embedded database (--data) or a PostgreSQL server (--database-url), `registry publish`
// sends signed bundles, and `can-i-ship` and `diff` exit by what is stored — each command a
// process, with the exit codes its help documents.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  cleanEnv,
  runMain,
  startMain,
  STACK_TRACE,
  type CliExit,
  type CliProcess,
} from '../support/reference-cli.ts';
import { main as registry } from '../../cli/commands/registry.ts';
import { openBackend, stopBackends, type OpenedBackend } from './support/backends.ts';
import { MUST_RULES, keyPair, makeBundle, removeBundles } from './support/bundles.ts';
import { seededDataDirectory } from './support/embedded-template.ts';
import { scratchDirectory } from '../support/scratch.ts';

after(() => removeBundles());
const vendor = keyPair();
const work = scratchDirectory('registry-cli-');
const publicKey = join(work, 'vendor.pub');
writeFileSync(publicKey, vendor.publicPem);
const conformant = makeBundle({ key: vendor.privateKey });
const failing = makeBundle({
  key: vendor.privateKey,
  failing: [MUST_RULES[0] ?? ''],
  startedAt: new Date('2026-11-26T10:00:00Z'),
});
const unsigned = makeBundle({ startedAt: new Date('2026-11-27T10:00:00Z') });

describe('registry --help: every action explains itself, with one table of exit codes', () => {
  for (const action of [
    'serve',
    'publisher',
    'publish',
    'can-i-ship',
    'diff',
    'recheck',
    'yank',
    'record-release',
    'retention',
    'audit',
  ]) {
    test(`registry ${action} --help`, async (t) => {
      const printed: string[] = [];
      t.mock.method(console, 'log', (text: string) => printed.push(text));
      assert.equal(await registry([action, '--help']), 0);
      assert.match(printed.join('\n'), new RegExp(`^Usage: tenant-auth-conformance registry ${action}\\b`));
      assert.equal(printed.join('\n').match(/Exit codes:/g)?.length, 1);
    });
  }
  test('registry alone prints its actions and exits 2; an unknown action names the valid ones', async (t) => {
    const printed: string[] = [];
    t.mock.method(console, 'log', (text: string) => printed.push(text));
    t.mock.method(console, 'error', (text: string) => printed.push(text));
    assert.equal(await registry([]), 2);
    assert.match(printed.join('\n'), /^ {2}can-i-ship {2}/m);
    assert.equal(await registry(['certify']), 2);
    assert.match(
      printed.join('\n'),
      /Unknown registry action "certify"\. Use one of: serve, publisher, publish, can-i-ship, diff, recheck, yank, record-release, retention, audit, webhook\./,
    );
  });
});

test('serve with a database it cannot reach exits 3, saying why, and never prints the password', async () => {
  const port = await closedPort();
  const passwordFile = join(work, 'database-password');
  writeFileSync(passwordFile, 'hunter2-secret\n');
  const result = await runMain([
    'registry',
    'serve',
    '--database-url',
    `postgres://registry@127.0.0.1:${port}/registry`,
    '--database-password-file',
    passwordFile,
    '--port',
    '0',
  ]);
  assert.equal(result.code, 3);
  assert.match(result.stderr, /^The registry's database cannot be opened: .*ECONNREFUSED/m);
  assert.equal(`${result.stdout}${result.stderr}`.includes('hunter2-secret'), false);
  assert.doesNotMatch(result.stderr, STACK_TRACE);
});

test('serve refuses a lane size out of bounds, naming the option and its range (exit 2)', async () => {
  for (const [option, value, range] of [
    ['--pages-at-once', '0', '1 to 64'],
    ['--pool-size', '101', '1 to 100'],
    ['--gate-pool-size', 'two', '1 to 20'],
  ] as const) {
    const result = await runMain(['registry', 'serve', '--data', join(work, 'lanes'), option, value]);
    assert.equal(result.code, 2, `${option} ${value}: ${result.stderr}`);
    assert.match(
      result.stderr,
      new RegExp(`^${option}: "${value}" is not a whole number from ${range}\\.$`, 'm'),
    );
    assert.doesNotMatch(result.stderr, STACK_TRACE);
  }
});

test('serve refuses a --gate-port that is not a port (exit 2) and one it cannot listen on (exit 3)', async () => {
  const bad = await runMain(['registry', 'serve', '--data', join(work, 'gate'), '--gate-port', 'x8443']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /^--gate-port: "x8443" is not a port number \(0 to 65535\)\.$/m);
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = (taken.address() as { port: number }).port;
    // A database made already: the refusal is the port's, not a first start's seconds of CPU.
    const refused = await runMain([
      'registry',
      'serve',
      '--data',
      await seededDataDirectory(join(work, 'gate-data')),
      '--port',
      '0',
      '--gate-port',
      String(port),
      '--cert-dir',
      join(work, 'gate-certs'),
    ]);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /^The registry cannot start: .*EADDRINUSE/m);
    assert.doesNotMatch(refused.stderr, STACK_TRACE);
  } finally {
    taken.close();
  }
});

test('a password in --database-url is refused (ps shows it), naming PGPASSWORD and the password file; a password file that cannot be read is named', async () => {
  const port = await closedPort();
  const inUrl = await runMain([
    'registry',
    'serve',
    '--database-url',
    `postgres://registry:hunter2-secret@127.0.0.1:${port}/registry`,
    '--port',
    '0',
  ]);
  assert.equal(inUrl.code, 2);
  assert.match(inUrl.stderr, /holds a password, which any user of this machine sees in ps/);
  assert.match(inUrl.stderr, /PGPASSWORD or --database-password-file/);
  assert.equal(`${inUrl.stdout}${inUrl.stderr}`.includes('hunter2-secret'), false);
  const missing = join(work, 'no-such-password-file');
  const unreadable = await runMain([
    'registry',
    'serve',
    '--database-url',
    `postgres://registry@127.0.0.1:${port}/registry`,
    '--database-password-file',
    missing,
    '--port',
    '0',
  ]);
  assert.equal(unreadable.code, 2);
  assert.ok(unreadable.stderr.includes(`${missing} cannot be read (ENOENT)`), unreadable.stderr);
});

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

for (const backend of ['embedded', 'server'] as const) {
  describe(`registry commands, ${backend} database`, () => {
    let database: OpenedBackend | undefined;
    let serve: CliProcess;
    let url: string;
    /** The gate port's (--gate-port): can-i-ship and the badge on a thread of their own. */
    let gateUrl: string;
    let publisher: CliExit;
    const directory = mkdtempSync(join(work, `${backend}-`));
    const publishers = join(directory, 'publishers.json');
    const tokenFile = join(directory, 'token');
    const caFile = join(directory, 'certs', 'ca.crt');
    const client = (args: string[]): Promise<CliExit> =>
      runMain(['registry', ...args, '--registry', url, '--ca-file', caFile, '--token-file', tokenFile]);

    before(async () => {
      publisher = await runMain([
        'registry',
        'publisher',
        '--publishers',
        publishers,
        '--name',
        'acme',
        '--public-key',
        publicKey,
      ]);
      writeFileSync(tokenFile, publisher.stdout);
      const where =
        backend === 'server'
          ? ['--database-url', (database = await openBackend('server', false)).where.databaseUrl ?? '']
          : // Its database made already (its first start is start-in-empty-directory's): 6 s of CPU less.
            ['--data', await seededDataDirectory(join(directory, 'data'))];
      serve = startMain(
        [
          'registry',
          'serve',
          ...where,
          '--publishers',
          publishers,
          '--port',
          '0',
          '--gate-port',
          '0',
          '--cert-dir',
          join(directory, 'certs'),
        ],
        cleanEnv(),
      );
      url = (await serve.waitForStdout(/Registry at (https:\/\/localhost:\d+)/))[1] ?? '';
      gateUrl = (await serve.waitForStdout(/gate: +(https:\/\/localhost:\d+) /))[1] ?? '';
    });
    after(async () => {
      serve.kill();
      await serve.exited;
      await database?.close();
      await stopBackends();
    });

    test('publisher prints the token once on stdout; the file keeps only its digest', () => {
      assert.equal(publisher.code, 0, publisher.stderr);
      const token = publisher.stdout.trim();
      assert.match(token, /^tacr_[A-Za-z0-9_-]{43}$/);
      assert.equal(readFileSync(publishers, 'utf8').includes(token), false);
      assert.match(publisher.stderr, /shown this once/);
    });

    if (backend === 'embedded')
      test("serve keeps the embedded database's large files in the data directory's blob store", () => {
        assert.equal(existsSync(join(directory, 'data', 'blobs')), true);
      });

    test('publish stores a signed bundle (exit 0) and refuses an unsigned one (exit 1)', async () => {
      const published = await client(['publish', conformant, '--deployment', 'shop', '--version', '1.0.0']);
      assert.equal(published.code, 0, published.stderr);
      assert.match(
        published.stdout,
        /^Published: shop 1\.0\.0 is run \d+, CONFORMANT: https:\/\/localhost:\d+\/runs\/\d+$/m,
      );
      const again = await client(['publish', conformant, '--deployment', 'shop', '--version', '1.0.0']);
      assert.match(again.stdout, /^Already published/);
      const refused = await client(['publish', unsigned, '--deployment', 'shop', '--version', '1.2.0']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^Refused: The bundle is not signed.*\(422 bundle_unsigned\)$/m);
      assert.doesNotMatch(refused.stderr, STACK_TRACE);
    });

    test('can-i-ship exits 0 for a VERIFIED CONFORMANT version, 1 otherwise, 2 on a bad question', async () => {
      const yes = await client([
        'can-i-ship',
        '--deployment',
        'shop',
        '--version',
        '1.0.0',
        '--profile',
        'strict',
      ]);
      assert.equal(yes.code, 0, yes.stderr);
      assert.match(yes.stdout, /^Yes: run \d+ of shop 1\.0\.0/);
      const no = await client(['can-i-ship', '--deployment', 'shop', '--version', '1.1.0']);
      assert.equal(no.code, 1);
      assert.match(no.stderr, /^No: no run of shop 1\.1\.0 has been published\./);
      // The gate port answers the same questions the same way (the release pipeline's URL).
      for (const [version, answer] of [
        ['1.0.0', yes],
        ['1.1.0', no],
      ] as const) {
        const gate = await runMain(
          ['registry', 'can-i-ship', '--deployment', 'shop', '--version', version]
            .concat(version === '1.0.0' ? ['--profile', 'strict'] : [])
            .concat(['--registry', gateUrl, '--ca-file', caFile]),
        );
        assert.equal(gate.code, answer.code, gate.stderr);
        assert.equal(gate.stdout, answer.stdout);
        assert.equal(gate.stderr, answer.stderr);
      }
      const bad = await client([
        'can-i-ship',
        '--deployment',
        'shop',
        '--version',
        '1.0.0',
        '--protocols',
        'h3',
      ]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--protocols: name h1, h2 or both/);
    });

    if (backend === 'embedded')
      test('a second registry on the same --data is refused (exit 3), naming the one that holds it', async () => {
        const second = await runMain(['registry', 'serve', '--data', join(directory, 'data'), '--port', '0']);
        assert.equal(second.code, 3);
        assert.match(second.stderr, new RegExp(`in use by another registry \\(pid ${serve.child.pid}\\)`));
      });

    if (backend === 'embedded')
      test('diff exits 1 when a rule regressed, 0 the other way; an unreachable registry exits 3', async () => {
        const published = await client(['publish', failing, '--deployment', 'shop', '--version', '1.1.0']);
        assert.equal(published.code, 0, published.stderr);
        const regressed = await client(['diff', '--deployment', 'shop', '--from', '1.0.0', '--to', '1.1.0']);
        assert.equal(regressed.code, 1, regressed.stderr);
        assert.match(
          regressed.stdout,
          new RegExp(`Regressed \\(1\\):\\n  ${MUST_RULES[0]} \\(MUST\\): pass → fail`),
        );
        const recovered = await client(['diff', '--deployment', 'shop', '--from', '1.1.0', '--to', '1.0.0']);
        assert.equal(recovered.code, 0);
        assert.match(recovered.stdout, /Recovered \(1\):/);
        const closed = await closedPort();
        const unreachable = await runMain([
          'registry',
          'can-i-ship',
          '--registry',
          `https://127.0.0.1:${closed}`,
          '--deployment',
          'shop',
          '--version',
          '1.0.0',
        ]);
        assert.equal(unreachable.code, 3);
        assert.match(
          unreachable.stderr,
          new RegExp(`Cannot reach the registry at https://127\\.0\\.0\\.1:${closed}: ECONNREFUSED`),
        );
      });

    test("the registry's output never shows a token", () => {
      const token = publisher.stdout.trim();
      assert.ok(serve.stdout().includes('POST /api/v1/runs 201'), serve.stdout());
      assert.equal(serve.stdout().includes(token) || serve.stderr().includes(token), false);
    });
  });
}
