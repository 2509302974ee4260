// The reference server's command line, run as a person runs it: `--help`, clear errors with the
// right exit status and no stack trace for a bad flag, a taken port and a bad fixtures file, a
// start-up banner without any key whose curl commands work exactly as printed, and a clean stop
// on SIGTERM and SIGINT.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Fixtures } from '../../../schemas/generated/fixtures.ts';
import { parseCli, UsageError } from '../../../reference-server/cli/cli-options.ts';
import {
  DEFAULT_FIXTURES_FILE,
  FixturesError,
  loadFixtures,
} from '../../../reference-server/store/fixtures.ts';
import { assertCustomersBody } from '../../support/reference-assertions.ts';
import {
  CLI_TIMEOUT_MS,
  cleanEnv,
  runCli,
  STACK_TRACE,
  startCli,
  type CliExit,
} from '../../support/reference-cli.ts';
import { allSecrets, LOOPBACK, REPO_ROOT } from '../../support/reference-client.ts';
import { scratchDirectory } from '../../support/scratch.ts';
import { KIT_BIN } from '../../support/compiled-kit.ts';

const execFileAsync = promisify(execFile);
const CURL = '/usr/bin/curl';

const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
const secrets = allSecrets(fixtures);

// The suites start separate processes and share nothing but the certificate directory (whose
// creation is safe to race), so two run side by side.
describe('reference server CLI', { concurrency: 2 }, () => {
  let workDir: string;
  let certDir: string;
  before(() => {
    workDir = scratchDirectory('reference-cli-');
    certDir = join(workDir, 'certs');
    mkdirSync(certDir);
  });
  after(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  /** Flags that keep a test run away from the defaults: free ports, temporary certificates, no data dir. */
  const isolated = (): string[] => [
    '--port',
    '0',
    '--http-port',
    '0',
    '--cert-dir',
    certDir,
    '--data-dir',
    'off',
  ];

  function assertCleanFailure(result: CliExit, code: number, ...mentions: string[]): void {
    const output = `${result.stdout}${result.stderr}`;
    assert.equal(result.code, code, output);
    for (const mention of mentions)
      assert.ok(result.stderr.includes(mention), `stderr names ${mention}: ${result.stderr}`);
    assert.doesNotMatch(output, STACK_TRACE, 'no stack trace');
    for (const secret of secrets) assert.ok(!output.includes(secret), 'no key in the output');
  }

  function writeFixtures(name: string, change: (data: Fixtures) => void): string {
    const data = JSON.parse(readFileSync(DEFAULT_FIXTURES_FILE, 'utf8')) as Fixtures;
    change(data);
    const file = join(workDir, name);
    writeFileSync(file, JSON.stringify(data, null, 2));
    return file;
  }

  describe('CLI: help and bad flags', () => {
    test('--help prints every option and exits 0', async () => {
      const result = await runCli(['--help']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Usage:/);
      for (const flag of [
        '--port',
        '--http-port',
        '--host',
        '--domain',
        '--fixtures',
        '--cert-dir',
        '--access-log',
        '--journal-size',
        '--page-size',
        '--help',
      ]) {
        assert.ok(result.stdout.includes(flag), flag);
      }
      // Each option line keeps its help text apart from the flag.
      for (const line of result.stdout.split('\n').filter((text) => /^ {2}--/.test(text))) {
        assert.match(
          line,
          /^ {2}--\S+( \S+)? {2,}\S/,
          `an option line without a gap: ${JSON.stringify(line)}`,
        );
      }
    });

    test('an unknown flag exits 2 with a message that names it and points to --help', async () => {
      assertCleanFailure(await runCli(['--bogus']), 2, '--bogus', '--help');
    });

    test('bad flag values are refused with a message naming the flag', () => {
      for (const [args, mention] of [
        [['--port', 'abc'], '--port'],
        [['--port', '70000'], '--port'],
        [['--port', '-1'], '--port'],
        [['--http-port', 'on'], '--http-port'],
        [['--access-log', 'loud'], '--access-log'],
        [['--journal-size', 'lots'], '--journal-size'],
        [['--journal-size', '0'], '--journal-size'],
        [['--domain', 'not a domain'], '--domain'],
        [['positional'], 'positional'],
        [['--port'], '--port'],
      ] as const) {
        assert.throws(
          () => parseCli([...args], {}),
          (error: unknown) =>
            error instanceof UsageError &&
            error.message.includes(mention) &&
            error.message.includes('--help'),
          args.join(' '),
        );
      }
    });
  });

  describe('CLI: a port that is taken', () => {
    let blocker: Server;
    let takenPort: number;
    before(async () => {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, LOOPBACK, resolve));
      takenPort = (blocker.address() as { port: number }).port;
    });
    after(async () => {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    });

    test('a taken HTTPS port exits non-zero with a message naming the port', async () => {
      const result = await runCli([...isolated(), '--port', String(takenPort)]);
      assertCleanFailure(result, 3, `${LOOPBACK}:${takenPort}`, 'already in use');
    });

    test('a taken plain-HTTP port exits non-zero with a message naming the port', async () => {
      const result = await runCli([...isolated(), '--http-port', String(takenPort)]);
      assertCleanFailure(result, 3, `${LOOPBACK}:${takenPort}`, 'already in use');
    });
  });

  describe('CLI: fixtures files that cannot be used', () => {
    test('an unreadable fixtures file exits non-zero naming the file', async () => {
      const missing = join(workDir, 'no-such-fixtures.json');
      assertCleanFailure(await runCli([...isolated(), '--fixtures', missing]), 3, missing, 'cannot be read');
    });

    test('an invalid fixtures file exits non-zero naming the file and the JSON path', async () => {
      const file = writeFixtures('bad-environment.json', (data) => {
        const key = data.tenants[1]?.keys[2];
        assert.ok(key);
        (key as { environment: string }).environment = 'staging';
      });
      assertCleanFailure(
        await runCli([...isolated(), '--fixtures', file]),
        3,
        file,
        '$.tenants[1].keys[2].environment',
      );
    });

    test('each kind of mistake is named by its JSON path, and no message shows a key', () => {
      const first = (data: Fixtures) => {
        const tenant = data.tenants[0];
        assert.ok(tenant);
        return tenant;
      };
      const cases: Array<[string, (data: Fixtures) => void, string]> = [
        [
          'duplicate-secret.json',
          (data) => void (first(data).keys[1]!.secret = first(data).keys[0]!.secret),
          '$.tenants[0].keys[1].secret',
        ],
        [
          'wrong-prefix.json',
          (data) => void (first(data).keys[0]!.secret = `mbk_dev_${'a1'.repeat(16)}`),
          '$.tenants[0].keys[0].secret',
        ],
        [
          'bad-email.json',
          (data) => void (first(data).customers.production[0]!.email = 'not-an-email'),
          '$.tenants[0].customers.production[0].email',
        ],
        ['bad-tenant-id.json', (data) => void (data.tenants[2]!.id = 'Not A Subdomain'), '$.tenants[2].id'],
        [
          'extra-field.json',
          (data) => void Object.assign(first(data), { extra: true }),
          '$.tenants[0]: unknown property "extra"',
        ],
        [
          'missing-customers.json',
          (data) => void delete (first(data) as Partial<Fixtures['tenants'][number]>).customers,
          '$.tenants[0]',
        ],
      ];
      for (const [name, change, path] of cases) {
        const file = writeFixtures(name, change);
        assert.throws(
          () => loadFixtures(file),
          (error: unknown) => {
            assert.ok(error instanceof FixturesError);
            assert.ok(error.message.includes(file), `${name}: names the file`);
            assert.ok(error.message.includes(path), `${name}: names ${path}: ${error.message}`);
            for (const secret of secrets) assert.ok(!error.message.includes(secret), `${name}: shows a key`);
            return true;
          },
        );
      }
      const notJson = join(workDir, 'not-json.json');
      writeFileSync(notJson, '{"tenants": [');
      assert.throws(
        () => loadFixtures(notJson),
        (error: unknown) =>
          error instanceof FixturesError &&
          error.message.includes(notJson) &&
          /not valid JSON/.test(error.message),
      );
    });
  });

  // In order: the banner, then curl against the running server, then the stop.
  describe('CLI: a running server', { concurrency: false }, () => {
    let cli: ReturnType<typeof startCli>;
    let banner: string;
    before(async () => {
      cli = startCli([...isolated(), '--access-log', 'stdout']);
      await cli.waitForStdout(/Access log \(JSON lines\) on stdout:\n/);
      banner = cli.stdout();
    });
    after(() => {
      cli.kill();
    });

    test('the start-up banner names keys by id only, never by value', () => {
      assert.match(banner, /Reference server ready/);
      assert.match(banner, /key_acme_prod_full/);
      for (const secret of secrets) assert.ok(!banner.includes(secret), 'a key in the banner');
      assert.equal(cli.stderr().includes('mbk_'), false, cli.stderr());
    });

    test('the curl commands work exactly as printed: 200 with data with a key (over HTTP/1.1 and HTTP/2), 401 without', async () => {
      const exportLine = /^ {2}(export API_KEY=.*)$/m.exec(banner)?.[1];
      const curlLines = [...banner.matchAll(/^ {2}(curl .*\/v1\/customers.*)$/gm)].map(
        (match) => match[1] ?? '',
      );
      assert.ok(exportLine, `an export line in the banner:\n${banner}`);
      assert.equal(curlLines.length, 3, banner);
      const [withKey = '', withoutKey = '', overHttp2 = ''] = curlLines;
      assert.match(withKey, /\$API_KEY/);
      assert.doesNotMatch(withoutKey, /API_KEY/);
      assert.match(overHttp2, /^curl --http2 .*\$API_KEY/);

      // The commands run unchanged in a shell; a curlrc in a temporary CURL_HOME only adds the status.
      const curlHome = mkdtempSync(join(workDir, 'curl-home-'));
      writeFileSync(
        join(curlHome, '.curlrc'),
        'write-out = "\\nHTTP_VERSION=%{http_version}\\nHTTP_STATUS=%{http_code}\\n"\n',
      );
      // Where a user runs them: a project with the kit installed. In the kit's own repository `npx
      // tenant-auth-conformance` takes the repository for the package and runs its `prepare`,
      // rebuilding dist/ under every other test that runs the compiled kit.
      const userProject = mkdtempSync(join(workDir, 'user-project-'));
      writeFileSync(join(userProject, 'package.json'), '{ "name": "a-client", "private": true }\n');
      mkdirSync(join(userProject, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(REPO_ROOT, join(userProject, 'node_modules', 'tenant-auth-conformance'), 'dir');
      symlinkSync(KIT_BIN, join(userProject, 'node_modules', '.bin', 'tenant-auth-conformance'));
      const run = async (command: string): Promise<{ status: number; version: string; body: string }> => {
        const { stdout } = await execFileAsync(
          'bash',
          ['-euo', 'pipefail', '-c', `${exportLine}\n${command}`],
          {
            cwd: userProject,
            // The system curl first on PATH: the one the README means.
            env: cleanEnv({ CURL_HOME: curlHome, PATH: `${dirname(CURL)}:${process.env.PATH ?? ''}` }),
            timeout: CLI_TIMEOUT_MS,
          },
        );
        const match = /\nHTTP_VERSION=([\d.]+)\nHTTP_STATUS=(\d{3})\n$/.exec(stdout);
        assert.ok(match, `curl printed a status: ${stdout.slice(-200)}`);
        return { status: Number(match[2]), version: match[1] ?? '', body: stdout.slice(0, match.index) };
      };

      const ok = await run(withKey);
      assert.equal(ok.status, 200, ok.body);
      const customers = assertCustomersBody(ok.body);
      assert.deepEqual(
        customers.data.map((customer) => customer.id),
        fixtures.tenants[0]?.customers.production.map((customer) => customer.id),
      );

      const http2 = await run(overHttp2);
      assert.equal(http2.version, '2', 'curl --http2 is answered over HTTP/2');
      assert.equal(http2.status, 200, http2.body);
      assert.deepEqual(assertCustomersBody(http2.body), customers);

      const denied = await run(withoutKey);
      assert.equal(denied.status, 401, denied.body);
      assert.equal(
        (JSON.parse(denied.body) as { error: { code: string } }).error.code,
        'missing_authorization_header',
      );

      // Both requests reached the access log on stdout, and no key did. A line is written after
      // its answer is sent, so the second may still be on its way when curl has exited.
      await cli.waitForStdout(/"status":401/);
      const log = cli.stdout().slice(banner.length);
      assert.match(log, /"status":200/);
      assert.match(log, /"status":401/);
      for (const secret of secrets) assert.ok(!log.includes(secret), 'a key in the access log');
    });

    test('the OpenAPI document URL it prints is served without a key', async () => {
      const url = /OpenAPI document \(no key needed\): (\S+)$/m.exec(banner)?.[1];
      const ca = /CA certificate: (\S+)$/m.exec(banner)?.[1];
      assert.ok(url && ca, banner);
      const { stdout } = await execFileAsync(
        CURL,
        ['--silent', '--show-error', '--fail', '--cacert', ca, url],
        {
          cwd: REPO_ROOT,
          timeout: CLI_TIMEOUT_MS,
        },
      );
      const document = JSON.parse(stdout) as {
        openapi?: string;
        servers?: Array<{ variables?: { domain?: { default?: string } } }>;
      };
      assert.equal(document.openapi, '3.1.0');
      // The served copy points tools at this server: its domain and port.
      assert.equal(
        document.servers?.[0]?.variables?.domain?.default,
        new URL(url).host.replace(/^admin\./, ''),
      );
    });

    test('SIGTERM stops it with exit status 0', async () => {
      cli.child.kill('SIGTERM');
      const result = await cli.exited;
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /SIGTERM received/);
      assert.doesNotMatch(result.stderr, STACK_TRACE);
    });
  });

  describe('CLI: SIGINT', () => {
    test('SIGINT (Ctrl-C) stops it with exit status 0 too', async () => {
      const cli = startCli([...isolated(), '--access-log', 'off']);
      try {
        await cli.waitForStdout(/Reference server ready/);
        cli.child.kill('SIGINT');
        const result = await cli.exited;
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stderr, /SIGINT received/);
      } finally {
        cli.kill();
      }
    });
  });
});
