// The kit used without cloning it, as a QA team or a vendor would: `npm pack`, the tarball
// installed into an empty project (from the npm cache that `npm ci` filled), then the installed
// `tenant-auth-conformance` serves the reference server and certifies it from a target file kept
// in that project, writing its reports there and nothing inside the installed package.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { copyFileSync, cpSync, symlinkSync } from 'node:fs';
import { RULES } from '../../conformance/catalog/rules.ts';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { REPO_ROOT, referenceTargetOn } from '../support/conformance-run.ts';
import { scanDirectory, scanText, secretForms } from '../support/artifact-scan.ts';
import { cleanEnv } from '../support/reference-cli.ts';
import { brokenLinks } from '../../scripts/doc-links.ts';
import { CREDENTIAL_VARIABLES } from '../../conformance/deployment/url-target.ts';
import type { CredentialName } from '../../conformance/deployment/target.ts';

/** Packing compiles the kit (prepare) and installing may read package metadata: generous bounds. */
const STEP_TIMEOUT_MS = 240_000;
const BIN = 'tenant-auth-conformance';

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end in its own process group, killed as a whole at the time-out. */
function run(command: string, args: string[], cwd: string, env = cleanEnv()): Promise<Finished> {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => killGroup(child), STEP_TIMEOUT_MS);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    }),
  );
}

/**
 * A command of a package installed in `cwd`, by the file `npx` would run (node_modules/.bin/NAME).
 * `npx` itself is kept for what the README shows a user typing with it (init, run by target file
 * and by URL, keygen, verify, the team's `playwright test`) and what the served kit tells them to
 * type (keys); serve runs through it too. Elsewhere (rules, compare, merge, client-report, each
 * command's --help, tsc) it would only add an npm process, about half a second of CPU, that
 * resolves the same file.
 */
function installed(cwd: string, name: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Finished> {
  return run(join(cwd, 'node_modules', '.bin', name), args, cwd, env);
}

/** `tenant-auth-conformance ARGS`, installed in `cwd`: see `installed`. */
function kit(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Finished> {
  return installed(cwd, BIN, args, env);
}

/**
 * Signals the child's process group and waits until no process of the group is left: the child
 * (`npx`) and what it started (the served kit, which writes its data directory while it stops)
 * alike. SIGKILL after 10 s; gives up waiting after 20 s.
 */
async function stopped(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const group = -child.pid;
  killGroup(child);
  const started = Date.now();
  let killed = false;
  while (groupAlive(group) && Date.now() - started < 20_000) {
    if (!killed && Date.now() - started >= 10_000) {
      killed = true;
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether any process of the group is left (signal 0 only checks). */
function groupAlive(group: number): boolean {
  try {
    process.kill(group, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

/** What a copy of the repository to pack leaves out: installed, generated and run-time folders. */
const NOT_PACKED_FROM = new Set([
  'node_modules',
  '.git',
  'reports',
  'dist',
  'tests',
  'test-results',
  'playwright-report',
  '.certs',
  '.reference-data',
  '.registry-data',
]);

/**
 * `npm pack`, as a user runs it, in a copy of the repository (its node_modules linked): the pack's
 * prepack rebuilds dist/ and writes the published manifest over package.json until postpack, and
 * the test files running beside this one read the repository's (`npm run fixture-key` needs its
 * scripts).
 */
async function packInACopy(destination: string): Promise<Finished> {
  const copy = join(destination, 'repository');
  cpSync(REPO_ROOT, copy, {
    recursive: true,
    filter: (source) => !NOT_PACKED_FROM.has(relative(REPO_ROOT, source).split(sep)[0] ?? ''),
  });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return run('npm', ['pack', '--silent', '--pack-destination', destination], copy);
}

describe('the packed kit, installed into an empty project', () => {
  let work: string;
  let project: string;
  let server: ChildProcess | undefined;
  let serverOutput = (): string => '';
  let ports: { https: number; http: number };
  let keys: Record<string, string>;
  let tarballPath: string;
  /** What npm printed when the project installed the tarball. */
  let installOutput = '';

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'conformance-package-'));
    project = join(work, 'project');
    mkdirSync(project);
    const packed = await packInACopy(work);
    assert.equal(packed.code, 0, packed.stderr);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball, `npm pack left no tarball in ${work}: ${packed.stdout}`);
    tarballPath = join(work, tarball);
    writeFileSync(join(project, 'package.json'), '{ "name": "certify-our-api", "private": true }\n');
    const installed = await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball)],
      project,
    );
    assert.equal(installed.code, 0, installed.stderr);
    installOutput = `${installed.stdout}\n${installed.stderr}`;

    // Its list paged two a page, as the embedded target's: every rule is exercised, the page-cursor one too.
    const serve = [
      BIN,
      'serve',
      '--port',
      '0',
      '--http-port',
      '0',
      '--access-log',
      'off',
      '--page-size',
      '2',
    ];
    const started = await startServe(serve, project);
    server = started.child;
    serverOutput = started.output;
    ports = started.ports;

    const exported = await run('npx', [BIN, 'keys', '--export'], project);
    assert.equal(exported.code, 0, exported.stderr);
    keys = Object.fromEntries(
      [...exported.stdout.matchAll(/^export (REFERENCE_KEY_\w+)=(\S+)$/gm)].map((match) => [
        match[1],
        match[2],
      ]),
    ) as Record<string, string>;
  });

  after(async () => {
    // The server writes its data directory while it stops (last uses, the lock): wait for it, not
    // only for `npx` in front of it, to exit before removing the project, or the removal races
    // its last writes.
    if (server) await stopped(server);
    if (!process.env.KEEP_WORK) rmSync(work, { recursive: true, force: true });
  });

  test('serve keeps its certificates and data under the project, not in the package', () => {
    assert.ok(existsSync(join(project, '.certs', 'ca.crt')), serverOutput());
    assert.match(serverOutput(), /npx tenant-auth-conformance keys/);
  });

  test('run --target with a target file of the project: CONFORMANT, reports in the project', async () => {
    const target = referenceTargetOn(ports, {
      name: 'installed reference',
      // Relative to the target file.
      caFile: '../.certs/ca.crt',
      hosts: { '*.localhost': '127.0.0.1' },
    });
    mkdirSync(join(project, 'targets'), { recursive: true });
    writeFileSync(join(project, 'targets', 'reference.json'), JSON.stringify(target, null, 2));
    const result = await run(
      'npx',
      [BIN, 'run', '--target', 'targets/reference.json'],
      project,
      cleanEnv(keys),
    );
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /VERDICT: CONFORMANT \(installed reference/);
    const report = JSON.parse(
      readFileSync(join(project, 'reports', 'conformance.json'), 'utf8'),
    ) as ConformanceReport;
    assert.equal(report.verdict, 'CONFORMANT');
    // Every rule but AUTH-COOKIE-NOT-CREDENTIAL, not applicable: the reference sets no cookie.
    assert.equal(report.summary.pass, RULES.length - 1);
    assert.equal(report.summary.notApplicable, 1);
    assert.ok(existsSync(join(project, 'reports', 'html', 'index.html')));
    // The installed kit redacts as the repository's does: no key in any report or on the console.
    const forms = secretForms(keys);
    const { findings, filesScanned } = scanDirectory(join(project, 'reports'), forms);
    findings.push(...scanText('stdout', result.stdout, forms), ...scanText('stderr', result.stderr, forms));
    assert.ok(filesScanned > 3);
    assert.deepEqual(findings, []);
  });

  test('run --base-url with the keys of keys --export --names conformance: each rule passes or says what to give', async () => {
    // The variables a target by URL reads, as the served kit's keys command prints them.
    const exported = await kit(project, ['keys', '--export', '--names', 'conformance']);
    assert.equal(exported.code, 0, exported.stderr);
    const urlKeys = Object.fromEntries(
      [...exported.stdout.matchAll(/^export (CONFORMANCE_KEY_\w+)=(\S+)$/gm)].map((match) => [
        match[1],
        match[2],
      ]),
    ) as Record<string, string>;
    assert.equal(urlKeys.CONFORMANCE_KEY_FULL_ACCESS, keys.REFERENCE_KEY_ACME_PROD_FULL);
    assert.equal(urlKeys.CONFORMANCE_KEY_OTHER_TENANT, keys.REFERENCE_KEY_GLOBEX_PROD_FULL);
    // No probe: a target by URL alone does not know the served plain-HTTP port.
    delete urlKeys.CONFORMANCE_KEY_PROBE;
    const result = await run(
      'npx',
      [
        BIN,
        'run',
        '--base-url',
        `https://acme.api.localhost:${ports.https}/v1`,
        '--ca-file',
        '.certs/ca.crt',
      ],
      project,
      cleanEnv({ ...urlKeys, CONFORMANCE_REPORT_DIR: 'by-url' }),
    );
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    const report = JSON.parse(
      readFileSync(join(project, 'by-url', 'conformance.json'), 'utf8'),
    ) as ConformanceReport;
    assert.equal(report.verdict, 'INCOMPLETE');
    const given = new Set(Object.keys(urlKeys));
    for (const rule of RULES) {
      const result = report.rules.find((candidate) => candidate.id === rule.id);
      const missing = rule.needs.filter((input) =>
        input.startsWith('credentials.')
          ? !given.has(CREDENTIAL_VARIABLES[input.slice('credentials.'.length) as CredentialName])
          : true,
      );
      if (missing.length === 0) {
        assert.equal(result?.verdict, 'pass', rule.id);
        continue;
      }
      assert.equal(result?.verdict, 'not-evaluated', rule.id);
      // In the terms of what was given: options and variables, never a target file.
      assert.doesNotMatch(result?.message ?? '', /target file/, rule.id);
      assert.match(
        result?.message ?? '',
        /--other-tenant-base-url|--sandbox-base-url|CONFORMANCE_KEY_PROBE is not set/,
        rule.id,
      );
    }
  });

  test('rules --json parses to the whole catalog; --version is the package version', async () => {
    const rules = await kit(project, ['rules', '--json']);
    assert.equal(rules.code, 0, rules.stderr);
    assert.deepEqual(
      (JSON.parse(rules.stdout) as { id: string }[]).map((rule) => rule.id),
      RULES.map((rule) => rule.id),
    );
    const version = await kit(project, ['--version']);
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(version.stdout.trim(), manifest.version);
  });

  test('nothing was written inside the installed package', () => {
    const installed = join(project, 'node_modules', 'tenant-auth-conformance');
    assert.deepEqual(readdirSync(installed).sort(), [
      'CONTRIBUTING.md',
      'LICENSE',
      'README.md',
      'bench',
      'dist',
      'docs',
      'examples',
      'fixtures',
      'library',
      'package.json',
      'schemas',
      'spec',
    ]);
    // The documents the README names, beside the one the server serves (the OpenAPI document).
    assert.ok(existsSync(join(installed, 'docs', 'openapi.json')));
    assert.deepEqual(readdirSync(join(installed, 'library')).sort(), ['index.api.md', 'playwright.api.md']);
  });

  test('everything the README links to is in the package, beside a LICENSE', () => {
    const installed = join(project, 'node_modules', 'tenant-auth-conformance');
    assert.deepEqual(brokenLinks(installed, ['README.md']), []);
    assert.match(readFileSync(join(installed, 'LICENSE'), 'utf8'), /^MIT License/);
  });

  test('the installed manifest holds what a user needs: no scripts, no development dependencies', () => {
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules', 'tenant-auth-conformance', 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    const repository = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(installed.scripts, undefined);
    assert.equal(installed.devDependencies, undefined);
    for (const field of ['name', 'version', 'license', 'type', 'exports', 'engines', 'bin', 'dependencies'])
      assert.deepEqual(installed[field], repository[field], field);
    // npm said nothing of install scripts when the project installed it (a prepare script is one).
    assert.doesNotMatch(installOutput, /install script/i);
    // Packing put the repository's own manifest back.
    assert.ok(!existsSync(join(REPO_ROOT, '.package.json.packing')));
    assert.ok(typeof repository.scripts === 'object');
  });

  test('every command runs from the tarball: init, keygen, compare, verify, merge, client-report', async () => {
    const init = await run(
      'npx',
      [BIN, 'init', 'https://acme.api.example.com/v1', '--output', 'starter.jsonc'],
      project,
    );
    assert.equal(init.code, 0, init.stderr);
    assert.ok(existsSync(join(project, 'starter.jsonc')));
    const keygen = await run('npx', [BIN, 'keygen', '--out', 'kit-signing'], project);
    assert.equal(keygen.code, 0, keygen.stderr);
    assert.ok(existsSync(join(project, 'kit-signing.key')) && existsSync(join(project, 'kit-signing.pub')));
    // The report of the run by target file (an earlier test), in a matrix.
    const compare = await kit(project, ['compare', 'reports/conformance.json']);
    assert.equal(compare.code, 0, compare.stderr);
    assert.match(compare.stdout, /TRANSPORT-HTTPS-CERT/);
    // Not a bundle: a usage error, never a stack trace.
    const verify = await run('npx', [BIN, 'verify', 'targets'], project);
    assert.equal(verify.code, 2, verify.stderr);
    assert.doesNotMatch(verify.stderr, /\n\s+at /);
    const merge = await kit(project, ['merge', 'no-such-directory']);
    assert.notEqual(merge.code, 0);
    assert.doesNotMatch(merge.stderr, /\n\s+at /);
    for (const command of [
      'run',
      'serve',
      'rules',
      'init',
      'keys',
      'compare',
      'merge',
      'verify',
      'keygen',
      'client-report',
    ]) {
      const help = await kit(project, [command, '--help']);
      assert.equal(help.code, 0, `${command} --help: ${help.stderr}`);
    }
    // The served reference's journal holds the runs' requests: judged, never a crash.
    const report = await kit(project, [
      'client-report',
      '--admin-url',
      `https://admin.localhost:${ports.https}/v1`,
    ]);
    assert.ok(report.code === 0 || report.code === 1, `${report.code}: ${report.stderr}`);
    assert.doesNotMatch(report.stderr, /ENOENT|\n\s+at /);
    const written = JSON.parse(
      readFileSync(join(project, 'reports', 'client', 'client-report.json'), 'utf8'),
    ) as {
      suite: { name: string };
    };
    assert.equal(written.suite.name, 'tenant-auth-conformance');
  });

  test('no command prints a stack trace: bad input to each is a message and an exit code', async () => {
    writeFileSync(join(project, 'not-json.txt'), 'not json\n');
    const cases: [string[], number][] = [
      [['run', '--nope'], 2],
      [['run', '--target', 'no-such-target.json'], 2],
      [['run', '--base-url', 'not-a-url'], 2],
      [['serve', '--port', 'abc'], 2],
      [['serve', '--fixtures', 'not-json.txt', '--port', '0', '--http-port', '0', '--data-dir', 'off'], 3],
      // A certificate directory that cannot be made (a file stands where its parent should be).
      [
        ['serve', '--cert-dir', 'not-json.txt/certs', '--port', '0', '--http-port', '0', '--data-dir', 'off'],
        3,
      ],
      [['rules', 'extra'], 2],
      [['init', 'not-a-url'], 2],
      [['init', 'https://acme.api.example.com/v1', '--output', 'no-such-folder/target.jsonc'], 2],
      [['keys', '--fixtures', 'not-json.txt'], 3],
      [['keys', 'no_such_key'], 2],
      [['keys', '--export', '--names', 'other'], 2],
      [['compare', 'not-json.txt'], 2],
      [['merge', 'not-json.txt'], 2],
      [['verify', 'no-such-bundle'], 2],
      [['keygen', '--out', 'no-such-folder/key'], 2],
      [['client-report', '--since', 'yesterday'], 2],
      [['no-such-command'], 2],
    ];
    for (const [args, expected] of cases) {
      const result = await kit(project, args);
      const output = `${result.stdout}\n${result.stderr}`;
      assert.equal(result.code, expected, `${args.join(' ')}: ${output}`);
      assert.doesNotMatch(output, /^\s+at \S|node:internal/m, args.join(' '));
      assert.ok(result.stderr.trim().length > 0, `${args.join(' ')} says what was wrong`);
    }
  });

  describe("a team's project: the kit from code, type-checked against its declarations", () => {
    let team: string;
    let faulty: ChildProcess | undefined;

    before(async () => {
      team = join(work, 'team');
      mkdirSync(join(team, 'api-tests'), { recursive: true });
      writeFileSync(join(team, 'package.json'), '{ "name": "our-sdk", "private": true, "type": "module" }\n');
      const consumer = join(REPO_ROOT, 'tests', 'packaging', 'consumer');
      copyFileSync(join(consumer, 'sdk-against-mock.ts'), join(team, 'sdk.test.ts'));
      copyFileSync(join(consumer, 'playwright.config.ts'), join(team, 'playwright.config.ts'));
      copyFileSync(join(consumer, 'own-api.ts'), join(team, 'api-tests', 'own.spec.ts'));
      copyFileSync(join(consumer, 'tsconfig.json'), join(team, 'tsconfig.json'));
      copyFileSync(join(consumer, 'global-fetch.ts'), join(team, 'global-fetch.test.ts'));
      // The team's own tools, at the versions the repository uses (in the npm cache).
      const tools = ['typescript', 'tsx', '@types/node'].map((name) => {
        const manifest = JSON.parse(
          readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8'),
        ) as { version: string };
        return `${name}@${manifest.version}`;
      });
      const installed = await run(
        'npm',
        ['install', '--prefer-offline', '--no-audit', '--no-fund', tarballPath, ...tools],
        team,
      );
      assert.equal(installed.code, 0, installed.stderr);
    });

    after(async () => {
      if (faulty) await stopped(faulty);
    });

    test('tsc --noEmit (strict) accepts the test file and the config against the emitted declarations', async () => {
      const checked = await installed(team, 'tsc', ['--noEmit', '-p', '.']);
      assert.equal(checked.code, 0, `${checked.stdout}\n${checked.stderr}`);
    });

    test("the same against Node 22's types: the mock's dispatcher fits its global fetch too", async () => {
      // Node 22's declarations (@types/node 22, a development dependency of the repository under
      // another name) as the only type root called `node`.
      const roots = join(team, 'node22-types');
      mkdirSync(roots, { recursive: true });
      symlinkSync(join(REPO_ROOT, 'node_modules', 'types-node-22'), join(roots, 'node'), 'dir');
      const config = { extends: './tsconfig.json', compilerOptions: { typeRoots: ['./node22-types'] } };
      writeFileSync(join(team, 'tsconfig.node22.json'), `${JSON.stringify(config)}\n`);
      const checked = await installed(team, 'tsc', ['--noEmit', '--listFiles', '-p', 'tsconfig.node22.json']);
      assert.equal(checked.code, 0, `${checked.stdout}\n${checked.stderr}`);
      const files = checked.stdout.split('\n');
      assert.ok(
        files.some((file) => /types-node-22\/globals\.d\.ts$/.test(file)),
        'Node 22 types read',
      );
      assert.ok(!files.some((file) => /@types\/node\/globals\.d\.ts$/.test(file)), 'and not Node 20 types');
    });

    test('an SDK test file with the in-process mock passes and exits on its own', async () => {
      // Outside this test runner's own context: a child of `node --test` reports to it otherwise.
      const env = cleanEnv();
      delete env.NODE_TEST_CONTEXT;
      const tested = await run(process.execPath, ['--import', 'tsx', '--test', 'sdk.test.ts'], team, env);
      assert.equal(tested.code, 0, `${tested.stdout}\n${tested.stderr}`);
      assert.match(tested.stdout, /# pass 2/);
      assert.match(tested.stdout, /# fail 0/);
    });

    test("Node's global fetch with the mock's dispatcher: type-checked above, and it runs", async () => {
      const env = cleanEnv();
      delete env.NODE_TEST_CONTEXT;
      const tested = await run(
        process.execPath,
        ['--import', 'tsx', '--test', 'global-fetch.test.ts'],
        team,
        env,
      );
      assert.equal(tested.code, 0, `${tested.stdout}\n${tested.stderr}`);
      assert.match(tested.stdout, /# pass 1/);
    });

    test('importing the package loads the mock, not undici, the client report or bundle verification', async () => {
      // Every module the import loads, ES modules by a loader hook and CommonJS ones by require.cache.
      writeFileSync(
        join(team, 'record-loads.mjs'),
        `import { register } from 'node:module';\n` +
          `register('data:text/javascript,' + encodeURIComponent('export async function load(url, context, next) { process.stderr.write("loaded " + url + "\\\\n"); return next(url, context); }'));\n`,
      );
      const loaded = async (body: string): Promise<string[]> => {
        const script = `${body}\nconst { createRequire } = await import('node:module');\nfor (const file of Object.keys(createRequire(import.meta.url).cache)) process.stderr.write('loaded ' + file + '\\n');`;
        const result = await run(
          process.execPath,
          ['--import', './record-loads.mjs', '--input-type=module', '-e', script],
          team,
        );
        assert.equal(result.code, 0, result.stderr);
        return [...result.stderr.matchAll(/^loaded (.+)$/gm)].map((match) => match[1] ?? '');
      };
      // ajv's compiler is not loaded; its small runtime helpers are (the start-up validators, precompiled).
      const lazy =
        /node_modules\/(undici|selfsigned|@playwright)\/|node_modules\/ajv\/(?!dist\/runtime\/)|client-report|attestation\/verify-/;
      const atImport = await loaded(`await import('tenant-auth-conformance');`);
      assert.ok(
        atImport.some((url) => url.includes('/dist/library/mock.js')),
        atImport.join('\n'),
      );
      assert.deepEqual(
        atImport.filter((url) => lazy.test(url)),
        [],
      );
      // The record sees them when they are used: undici once the mock's dispatcher is read.
      const afterFetch = await loaded(
        `const { startReferenceMock } = await import('tenant-auth-conformance'); const mock = await startReferenceMock(); void mock.dispatcher; await mock.close();`,
      );
      assert.ok(
        afterFetch.some((url) => /node_modules\/undici\//.test(url)),
        afterFetch.join('\n'),
      );
    });

    test("the README's TypeScript snippets, as printed: each compiles (strict, the tsconfig it states), the mock's runs", async () => {
      const readme = readFileSync(join(team, 'node_modules', 'tenant-auth-conformance', 'README.md'), 'utf8');
      const snippets = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
      assert.ok(snippets.length >= 2, `${snippets.length} TypeScript snippets`);
      // The lib the README says `await using` needs, read from the README itself.
      const lib = JSON.parse(/"lib": (\[[^\]]*\])/.exec(readme)?.[1] ?? 'null') as string[] | null;
      assert.ok(lib, 'the README states the tsconfig lib');
      const folder = join(team, 'readme-snippets');
      mkdirSync(folder, { recursive: true });
      snippets.forEach((code, index) => writeFileSync(join(folder, `snippet-${index + 1}.ts`), code));
      writeFileSync(
        join(folder, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            lib,
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
          },
          include: ['*.ts'],
        }),
      );
      const checked = await installed(team, 'tsc', ['-p', 'readme-snippets']);
      assert.equal(checked.code, 0, `${checked.stdout}\n${checked.stderr}`);
      const mock = snippets.findIndex((code) => code.includes('startReferenceMock'));
      assert.ok(mock >= 0);
      const env = cleanEnv();
      delete env.NODE_TEST_CONTEXT;
      const ran = await run(
        process.execPath,
        ['--import', 'tsx', join(folder, `snippet-${mock + 1}.ts`)],
        team,
        env,
      );
      assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);
    });

    test('its own playwright.config.ts: its test and every rule pass against the embedded reference (exit 0)', async () => {
      const result = await run('npx', ['playwright', 'test'], team);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
      const json = readFileSync(join(team, 'results.json'), 'utf8');
      assert.match(json, /our API lists customers/);
      assert.match(json, /TRANSPORT-HTTPS-CERT/);
      assert.match(result.stdout, /VERDICT: CONFORMANT/);
      // The kit's report states the options the team gave conformanceProjects (maxRetries: 2).
      const kitReport = JSON.parse(
        readFileSync(join(team, 'conformance-reports', 'conformance.json'), 'utf8'),
      ) as ConformanceReport;
      assert.equal(kitReport.options?.maxRetries, 2);
    });

    test('--project and --grep select the rules as for any project: the team’s own test left out', async () => {
      const result = await installed(team, 'playwright', [
        'test',
        '--project',
        'conformance',
        '--grep',
        'AUTH-MISSING-HEADER:',
      ]);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
      const ran = ranTitles(JSON.parse(readFileSync(join(team, 'results.json'), 'utf8')) as PlaywrightJson);
      const rules = ran.filter((title) => /^(MUST|HTTP|ADVISORY) /.test(title));
      assert.deepEqual(
        rules.map((title) => title.split(':')[0]),
        ['MUST AUTH-MISSING-HEADER'],
        ran.join('\n'),
      );
      assert.ok(!ran.some((title) => title.includes('our API lists customers')), ran.join('\n'));
    });

    test('--shard splits the rules between machines: each shard runs a part, together all of them', async () => {
      const shards = [];
      for (const shard of ['1/2', '2/2']) {
        const result = await installed(team, 'playwright', ['test', '--shard', shard]);
        assert.equal(result.code, 0, `${shard}: ${result.stdout}\n${result.stderr}`);
        // A rule skipped as not applicable (AUTH-COOKIE-NOT-CREDENTIAL: the reference sets no cookie)
        // was still this shard's.
        const json = JSON.parse(readFileSync(join(team, 'results.json'), 'utf8')) as PlaywrightJson;
        const ran = titlesWhere(json, (status) => status !== 'interrupted');
        shards.push(ran.filter((title) => /^(MUST|HTTP|ADVISORY) /.test(title)));
      }
      const [first = [], second = []] = shards;
      assert.ok(
        first.length > 0 && second.length > 0,
        `both shards ran rules: ${first.length}, ${second.length}`,
      );
      assert.deepEqual(
        first.filter((title) => second.includes(title)),
        [],
        'no rule ran in both shards',
      );
      assert.equal(new Set([...first, ...second]).size, RULES.length, 'together, every rule of the catalog');
    });

    test('a { baseUrl } target lacking a key: INCOMPLETE, exit 0; with failOnIncomplete exit 1', async () => {
      const byUrl = {
        URL_TARGET: `https://acme.api.localhost:${ports.https}/v1`,
        URL_TARGET_CA: join(project, '.certs', 'ca.crt'),
        CONFORMANCE_KEY_FULL_ACCESS: keys.REFERENCE_KEY_ACME_PROD_FULL ?? '',
      };
      // A rule its one key lets it check, and one it needs a Read Only key for.
      const selected = [
        'test',
        '--project',
        'conformance',
        '--grep',
        'KEY-VALID-SERVED:|PERM-READ-ONLY-READS:',
      ];
      for (const [fail, expected] of [
        [false, 0],
        [true, 1],
      ] as const) {
        const env = cleanEnv({ ...byUrl, ...(fail ? { FAIL_ON_INCOMPLETE: '1' } : {}) });
        const result = await installed(team, 'playwright', [...selected], env);
        assert.equal(result.code, expected, `failOnIncomplete ${fail}: ${result.stdout}\n${result.stderr}`);
        const report = JSON.parse(
          readFileSync(join(team, 'conformance-reports', 'conformance.json'), 'utf8'),
        ) as ConformanceReport;
        assert.equal(report.verdict, 'INCOMPLETE');
        assert.equal(report.options?.failOnIncomplete, fail);
        const verdicts = Object.fromEntries(report.rules.map((rule) => [rule.id, rule]));
        assert.equal(verdicts['KEY-VALID-SERVED']?.verdict, 'pass');
        const notEvaluated = verdicts['PERM-READ-ONLY-READS'];
        assert.equal(notEvaluated?.verdict, 'not-evaluated');
        // What the team configured: a target by URL, whose keys are variables.
        assert.match(notEvaluated?.message ?? '', /CONFORMANCE_KEY_READ_ONLY is not set/);
        assert.doesNotMatch(notEvaluated?.message ?? '', /target file/);
      }
    });

    test("merge: the blob reports the team's own config wrote, one folder per shard as CI downloads them", async () => {
      // Each shard as a CI job runs it, and its artifact: the blob reporter's folder and the shard's
      // record, which conformanceReporter leaves in its outputDir's blob/.
      for (const shard of ['1/2', '2/2']) {
        // A machine of its own per shard: nothing of the other shard's run left in the project.
        for (const folder of ['blob-report', 'conformance-reports'])
          rmSync(join(team, folder), { recursive: true, force: true });
        const ran = await installed(
          team,
          'playwright',
          [
            'test',
            '--project',
            'conformance',
            '--grep',
            'AUTH-MISSING-HEADER:|KEY-UNKNOWN-REJECTED:',
            '--shard',
            shard,
          ],
          cleanEnv({ BLOB_REPORT: '1' }),
        );
        assert.equal(ran.code, 0, `${shard}: ${ran.stdout}\n${ran.stderr}`);
        const artifact = join(team, 'artifacts', `shard-${shard.replace('/', '-of-')}`);
        for (const folder of ['blob-report', join('conformance-reports', 'blob')]) {
          mkdirSync(join(artifact, folder), { recursive: true });
          for (const name of readdirSync(join(team, folder)))
            copyFileSync(join(team, folder, name), join(artifact, folder, name));
        }
      }
      const merged = await kit(team, ['merge', '--reports', 'merged', 'artifacts']);
      assert.equal(merged.code, 0, `${merged.stdout}\n${merged.stderr}`);
      assert.doesNotMatch(merged.stderr, /\n\s+at /);
      const report = JSON.parse(
        readFileSync(join(team, 'merged', 'conformance.json'), 'utf8'),
      ) as ConformanceReport;
      const verdicts = Object.fromEntries(report.rules.map((rule) => [rule.id, rule.verdict]));
      assert.equal(verdicts['AUTH-MISSING-HEADER'], 'pass');
      assert.equal(verdicts['KEY-UNKNOWN-REJECTED'], 'pass');

      // A folder without any blob report: what to pass, not Playwright's stack trace.
      mkdirSync(join(team, 'no-blobs'));
      const empty = await kit(team, ['merge', 'no-blobs']);
      assert.equal(empty.code, 2, empty.stderr);
      assert.match(empty.stderr, /No blob report \(a \.zip file\) in no-blobs/);
      assert.match(empty.stderr, /blob-report\//);
      assert.doesNotMatch(empty.stderr, /\n\s+at /);
    });

    test('against a faulty variant: exit 1, the failing rule in its own JSON report', async () => {
      const started = await startServe(
        [
          BIN,
          'serve',
          '--fault',
          'missing-header-answered-invalid-key',
          '--port',
          '0',
          '--http-port',
          '0',
          '--access-log',
          'off',
          '--data-dir',
          'off',
        ],
        team,
      );
      faulty = started.child;
      const target = referenceTargetOn(started.ports, {
        name: 'faulty variant',
        caFile: '.certs/ca.crt',
        hosts: { '*.localhost': '127.0.0.1' },
      });
      writeFileSync(join(team, 'faulty.json'), JSON.stringify(target, null, 2));
      const result = await installed(
        team,
        'playwright',
        ['test'],
        cleanEnv({ ...keys, FAULTY_TARGET: 'faulty.json' }),
      );
      assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
      const report = JSON.parse(readFileSync(join(team, 'results.json'), 'utf8')) as PlaywrightJson;
      const failed = failedTitles(report);
      assert.ok(
        failed.some((title) => title.includes('AUTH-MISSING-HEADER:')),
        failed.join('\n'),
      );
      assert.ok(!failed.some((title) => title.includes('our API lists customers')));
    });
  });
});

/** `npx ARGS` (the installed kit's serve) in `cwd`, once it says where it listens; all it has printed. */
async function startServe(
  args: readonly string[],
  cwd: string,
): Promise<{ child: ChildProcess; ports: { https: number; http: number }; output: () => string }> {
  const child = spawn('npx', args, {
    cwd,
    env: cleanEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listening = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), STEP_TIMEOUT_MS);
    const read = (chunk: string): void => {
      output += chunk;
      const match = /Listening: https port (\d+), http port (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.setEncoding('utf8').on('data', read);
    child.stderr?.setEncoding('utf8').on('data', read);
    child.on('close', () => reject(new Error(`serve exited:\n${output}`)));
  });
  return { child, ports: { https: Number(listening[1]), http: Number(listening[2]) }, output: () => output };
}

interface PlaywrightJsonSuite {
  specs?: { title: string; tests: { status: string }[] }[];
  suites?: PlaywrightJsonSuite[];
}
type PlaywrightJson = PlaywrightJsonSuite;

/** The titles of the tests Playwright's JSON reporter counts as unexpected (failed). */
function failedTitles(suite: PlaywrightJsonSuite): string[] {
  return titlesWhere(suite, (status) => status === 'unexpected');
}

/** The titles of the tests that ran (passed or failed), not skipped. */
function ranTitles(suite: PlaywrightJsonSuite): string[] {
  return titlesWhere(suite, (status) => status === 'expected' || status === 'unexpected');
}

function titlesWhere(suite: PlaywrightJsonSuite, wanted: (status: string) => boolean): string[] {
  return [
    ...(suite.specs ?? [])
      .filter((spec) => spec.tests.some((test) => wanted(test.status)))
      .map((spec) => spec.title),
    ...(suite.suites ?? []).flatMap((child) => titlesWhere(child, wanted)),
  ];
}
