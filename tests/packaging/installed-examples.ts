// The examples/ of the package, copied out of node_modules/tenant-auth-conformance/examples/ into
// an empty folder with the tarball installed and run as their header comments say, each with what
// it prints checked: the client against the shared reference server, the SDK test file with the
// in-process mock, the dashboard over the catalog, the mock's Vitest and Jest files (by the kit's own
// Vitest and Jest: a reader installs their own). The team config is compiled (the docs' blocks
// test compiles the Playwright entry; running a config is tests/packaging/team-playwright.ts's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { RULES } from '../../conformance/catalog/rules.ts';
import { cleanEnv } from '../support/reference-cli.ts';
import { emptyProject, tsxLoader } from './doc-blocks.ts';
import { kit, run, type InstalledKit } from './installed-kit.ts';

/** A copy of each shipped example in an empty project; its folder. */
function examplesCopied(installedKit: InstalledKit): string {
  const folder = emptyProject(installedKit);
  const shipped = join(installedKit.project, 'node_modules', 'tenant-auth-conformance', 'examples');
  for (const file of readdirSync(shipped)) copyFileSync(join(shipped, file), join(folder, file));
  return folder;
}

/**
 * A project of its own with the installed package in its node_modules and `example` copied from
 * the package: a test runner writes its cache there (Vitest: node_modules/.vite), not in the
 * installed project. Its folder.
 */
function frameworkProject(installedKit: InstalledKit, example: string): string {
  const folder = mkdtempSync(join(installedKit.work, 'framework-'));
  writeFileSync(join(folder, 'package.json'), '{ "name": "our-sdk", "private": true, "type": "module" }\n');
  const installedPackage = join(installedKit.project, 'node_modules', 'tenant-auth-conformance');
  mkdirSync(join(folder, 'node_modules'));
  symlinkSync(installedPackage, join(folder, 'node_modules', 'tenant-auth-conformance'), 'dir');
  copyFileSync(join(installedPackage, 'examples', example), join(folder, example));
  return folder;
}

/**
 * A test's time limit for Vitest and Jest: their default, 5 s, is a wall time, and the example's
 * first test (its first request loads the mock's HTTP client) took over 5 s under Jest on this
 * machine shared by other work; what the test proves is that the example's tests pass, not how
 * fast. Both runners take `--testTimeout MS`.
 */
const RUNNER_TEST_TIMEOUT = ['--testTimeout', '120000'];

/** The output of a runner told not to colour it, and outside this test runner's own context. */
function runnerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cleanEnv({ NO_COLOR: '1', FORCE_COLOR: '0', CI: '1', ...extra });
  delete env.NODE_TEST_CONTEXT;
  return env;
}

export function installedExamplesTests(installedKit: () => InstalledKit, teamFolder: () => string): void {
  test('examples/client.ts, copied from the package: lists the customers of the served reference', async () => {
    const installed = installedKit();
    const folder = examplesCopied(installed);
    const key = await kit(installed.project, ['keys', 'key_acme_prod_read']);
    assert.equal(key.code, 0, key.stderr);
    const env = cleanEnv({
      API_KEY: key.stdout.trim(),
      API_CA_FILE: join(installed.project, '.certs', 'ca.crt'),
    });
    const baseUrl = `https://acme.api.localhost:${installed.ports.https}/v1`;
    const ran = await run(
      process.execPath,
      ['--import', tsxLoader(teamFolder()), 'client.ts', baseUrl],
      folder,
      env,
    );
    assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);
    const listed = JSON.parse(ran.stdout) as { object?: string; data?: unknown[] };
    assert.equal(listed.object, 'list', ran.stdout);
    assert.ok((listed.data?.length ?? 0) > 0, ran.stdout);
  });

  test('examples/sdk-mock.test.ts, copied from the package: its tests pass against the in-process mock', async () => {
    const folder = examplesCopied(installedKit());
    const env = cleanEnv();
    delete env.NODE_TEST_CONTEXT;
    const ran = await run(
      process.execPath,
      ['--import', tsxLoader(teamFolder()), '--test', 'sdk-mock.test.ts'],
      folder,
      env,
    );
    assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);
    assert.match(ran.stdout, /^# fail 0$/m);
    assert.doesNotMatch(ran.stdout, /^# pass 0$/m);
  });

  test('examples/rules-dashboard.ts, copied from the package: the catalog counted by level', async () => {
    const folder = examplesCopied(installedKit());
    const ran = await run(
      process.execPath,
      ['--import', tsxLoader(teamFolder()), 'rules-dashboard.ts'],
      folder,
    );
    assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);
    const expected = (['MUST', 'HTTP', 'ADVISORY'] as const).map(
      (level) => `${level}: ${RULES.filter((rule) => rule.level === level).length} rules`,
    );
    assert.deepEqual(ran.stdout.trim().split('\n'), expected);
  });

  test('examples/mock-vitest.test.ts, copied from the package: its tests pass under Vitest', async () => {
    const folder = frameworkProject(installedKit(), 'mock-vitest.test.ts');
    const vitest = join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const ran = await run(
      process.execPath,
      [vitest, 'run', ...RUNNER_TEST_TIMEOUT, 'mock-vitest.test.ts'],
      folder,
      runnerEnv(),
    );
    const output = `${ran.stdout}\n${ran.stderr}`;
    assert.equal(ran.code, 0, output);
    assert.match(output, /Tests\s+2 passed \(2\)/);
  });

  test('examples/mock-jest.test.ts, copied from the package: its tests pass under Jest', async () => {
    const folder = frameworkProject(installedKit(), 'mock-jest.test.ts');
    // The example's header comment's configuration, its Babel preset found in the kit's node_modules.
    const preset = join(REPO_ROOT, 'node_modules', '@babel', 'preset-typescript');
    const config = {
      testEnvironment: 'node',
      extensionsToTreatAsEsm: ['.ts'],
      transform: { '\\.ts$': ['babel-jest', { presets: [preset] }] },
    };
    writeFileSync(join(folder, 'jest.config.json'), `${JSON.stringify(config)}\n`);
    const jest = join(REPO_ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
    const env = runnerEnv({ NODE_OPTIONS: '--experimental-vm-modules' });
    const ran = await run(
      process.execPath,
      [jest, '--ci', ...RUNNER_TEST_TIMEOUT, 'mock-jest.test.ts'],
      folder,
      env,
    );
    const output = `${ran.stdout}\n${ran.stderr}`;
    assert.equal(ran.code, 0, output);
    assert.match(output, /Tests:\s+2 passed, 2 total/);
  });
}
