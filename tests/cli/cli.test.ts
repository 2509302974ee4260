// The one executable, run from the repository's TypeScript as `npm run …` does: help and exit
// codes of every subcommand, the rule catalog, `init`'s starter file, and a target by URL.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../conformance/catalog/rules.ts';
import { readTargetFile, resolveTarget, TargetError } from '../../conformance/deployment/target.ts';
import { CREDENTIAL_VARIABLES, urlTarget } from '../../conformance/deployment/url-target.ts';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { cleanEnv, KIT_SUBCOMMANDS, runMain, type CliExit } from '../support/reference-cli.ts';
import { scratchDirectory } from '../support/scratch.ts';

const cli = (args: string[], cwd = REPO_ROOT): Promise<CliExit> => runMain(args, cleanEnv(), { cwd });

function assertNoStackTrace(result: CliExit): void {
  assert.doesNotMatch(result.stderr, /^\s+at /m, result.stderr);
}

describe('tenant-auth-conformance: commands, help and exit codes', () => {
  test('--help lists every subcommand and the exit codes', async () => {
    const result = await cli(['--help']);
    assert.equal(result.code, 0, result.stderr);
    for (const name of KIT_SUBCOMMANDS) assert.match(result.stdout, new RegExp(`^  ${name} `, 'm'));
    assert.match(result.stdout, /^ {2}3 {2}setup error/m);
  });

  test('no command prints the help and exits 2; an unknown one names the valid ones', async () => {
    const none = await cli([]);
    assert.equal(none.code, 2);
    assert.match(none.stdout, /^Usage: tenant-auth-conformance <command>/);
    const unknown = await cli(['certify']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown command "certify"\. Use one of: run, serve, rules, init, keys/);
    assertNoStackTrace(unknown);
  });

  test('a temporary directory the system refuses is named, with the fix, not a stack trace (exit 3)', async () => {
    const missing = join(scratchDirectory('cli-tmpdir-'), 'gone');
    const result = await runMain(
      ['run', '--grep', '@VERSION-PATH'],
      { ...cleanEnv(), TMPDIR: missing },
      {
        cwd: REPO_ROOT,
      },
    );
    assert.equal(result.code, 3, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(`the temporary directory ${missing} is missing, full or not writable: set TMPDIR`),
    );
    assertNoStackTrace(result);
  });

  test('--version prints the version of package.json', async () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal((await cli(['--version'])).stdout.trim(), manifest.version);
  });

  for (const name of KIT_SUBCOMMANDS) {
    test(`${name} --help explains the command and exits 0`, async () => {
      const result = await cli([name, '--help']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`Usage: tenant-auth-conformance ${name}\\b`));
      assert.ok((result.stdout.match(/Exit codes/g) ?? []).length <= 1, 'one table of exit codes at most');
    });
  }

  test("run --help: the run's options, the target by URL, then one table of exit codes, the run's", async () => {
    const { stdout } = await cli(['run', '--help']);
    const [byUrl, exitCodes] = [stdout.indexOf('A target by URL'), stdout.indexOf('Exit codes:')];
    assert.ok(byUrl > stdout.indexOf('--target FILE') && exitCodes > byUrl, stdout);
    assert.equal(stdout.match(/Exit codes/g)?.length, 1);
    assert.match(stdout.slice(exitCodes), /3 {2}SETUP ERROR/);
  });

  test('rules --json is the catalog; rules with an unknown option exits 2', async () => {
    const json = await cli(['rules', '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), RULES);
    const text = await cli(['rules']);
    assert.match(
      text.stdout,
      /^KEY-REVOKED-REJECTED {2}\[MUST\] {2}.+\n {2}.+\n {2}needs: credentials\.revoked$/m,
    );
    const bad = await cli(['rules', '--yaml']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--yaml/);
  });

  test('keys: an unknown key id exits 2 and prints no key', async () => {
    const result = await cli(['keys', 'key_nobody']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /No key with id "key_nobody"/);
    assert.equal(result.stdout, '');
  });
});

describe('init: a starter target file', () => {
  test('writes conformance-target.jsonc in the current directory, a valid target with comments', async () => {
    const dir = scratchDirectory('conformance-init-');
    const result = await cli(['init', 'https://acme.api.example.com/v1'], dir);
    assert.equal(result.code, 0, result.stderr);
    const file = join(dir, 'conformance-target.jsonc');
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^ {2}\/\/ The tenant under test/m);
    assert.match(text, /Settings → API → API Keys/);
    const target = readTargetFile(file);
    assert.equal(target.baseUrl, 'https://acme.api.example.com/v1');
    assert.equal(target.credentials?.fullAccess, CREDENTIAL_VARIABLES.fullAccess);
    // The probe key is exposed by design: left for the user to switch on.
    assert.equal(target.credentials?.probe, undefined);
    // Until the keys are exported, the run stops with the names to export.
    assert.throws(
      () => resolveTarget(file, {}),
      (error: Error) => {
        assert.ok(error instanceof TargetError);
        assert.match(error.message, new RegExp(`${CREDENTIAL_VARIABLES.readOnly} is not set`));
        return true;
      },
    );
    const keys = Object.fromEntries(
      Object.values(CREDENTIAL_VARIABLES).map((name) => [name, `value-of-${name}`]),
    );
    assert.equal(resolveTarget(file, keys).credentials.revoked, `value-of-${CREDENTIAL_VARIABLES.revoked}`);
  });

  test('a *.localhost base URL: the same host map as run --base-url; another host: none', async () => {
    const dir = scratchDirectory('conformance-init-');
    const local = 'https://acme.api.localhost:9443/v1';
    const written = await cli(['init', local, '--output', 'local.jsonc'], dir);
    assert.equal(written.code, 0, written.stderr);
    const byUrl = urlTarget({ baseUrl: local }, {});
    assert.ok(byUrl.hosts, 'run --base-url maps *.localhost');
    assert.deepEqual(readTargetFile(join(dir, 'local.jsonc')).hosts, byUrl.hosts);
    const remote = await cli(['init', 'https://acme.api.example.com/v1', '--output', 'remote.jsonc'], dir);
    assert.equal(remote.code, 0, remote.stderr);
    assert.equal(readTargetFile(join(dir, 'remote.jsonc')).hosts, undefined);
    assert.equal(urlTarget({ baseUrl: 'https://acme.api.example.com/v1' }, {}).hosts, undefined);
  });

  test('does not replace a file without --force, and refuses a base URL that is not https://host/v1', async () => {
    const dir = scratchDirectory('conformance-init-');
    writeFileSync(join(dir, 'mine.jsonc'), 'keep me');
    const again = await cli(['init', 'https://acme.api.example.com/v1', '--output', 'mine.jsonc'], dir);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /exists already.*--force/);
    assert.equal(readFileSync(join(dir, 'mine.jsonc'), 'utf8'), 'keep me');
    const forced = await cli(
      ['init', 'https://acme.api.example.com/v1', '--output', 'mine.jsonc', '--force'],
      dir,
    );
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readTargetFile(join(dir, 'mine.jsonc')).name, 'acme.api.example.com');
    const plain = await cli(['init', 'http://acme.api.example.com/v1'], dir);
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /Invalid base URL "http:\/\/acme\.api\.example\.com\/v1"/);
    assertNoStackTrace(plain);
  });
});

describe('target files with comments', () => {
  test('comments and trailing commas are accepted; a syntax error names the line and column', () => {
    const dir = scratchDirectory('conformance-jsonc-');
    const good = join(dir, 'good.jsonc');
    writeFileSync(good, '// ours\n{\n  /* the tenant */ "baseUrl": "https://a.api.example.com/v1",\n}\n');
    assert.equal(readTargetFile(good).baseUrl, 'https://a.api.example.com/v1');
    const bad = join(dir, 'bad.jsonc');
    writeFileSync(bad, '{\n  "baseUrl": "https://a.api.example.com/v1"\n  "name": "x"\n}\n');
    assert.throws(() => readTargetFile(bad), /cannot be read as JSON \(CommaExpected at line 3, column 3\)/);
  });
});

describe('run --base-url: a target without a target file', () => {
  test('credentials come from the documented variables that are set, and only those', () => {
    const target = urlTarget(
      { baseUrl: 'https://acme.api.example.com/v1' },
      { [CREDENTIAL_VARIABLES.fullAccess]: 'k1', [CREDENTIAL_VARIABLES.revoked]: '', UNRELATED: 'x' },
    );
    assert.deepEqual(target, {
      baseUrl: 'https://acme.api.example.com/v1',
      credentials: { fullAccess: CREDENTIAL_VARIABLES.fullAccess },
    });
    const local = urlTarget({ baseUrl: 'https://acme.api.localhost:8443/v1', caFile: '/ca.pem' }, {});
    assert.deepEqual(local.hosts, { '*.localhost': '127.0.0.1' });
    assert.equal(local.caFile, '/ca.pem');
  });

  test('with --target, or URL options without --base-url, it exits 2 before running anything', async () => {
    const both = await cli(['run', '--base-url', 'https://a.api.example.com/v1', '--target', 'x.json']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /either --target FILE or --base-url URL/);
    const alone = await cli(['run', '--sandbox-base-url', 'https://sandbox-a.api.example.com/v1']);
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /need --base-url/);
  });

  test('a base URL the schema refuses is a usage error (exit 2) naming the option, not a file', async () => {
    const result = await cli(['run', '--base-url', 'https://a.api.example.com/v2']);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /Invalid --base-url "https:\/\/a\.api\.example\.com\/v2": give a base URL https:\/\/\{host\}\/v1/,
    );
    assert.doesNotMatch(result.stderr, /target file/);
    assertNoStackTrace(result);
  });
});
