// A team's project using the kit from code, type-checked against the declarations it emits: its own
// TypeScript (strict, against Node 20's and Node 22's types), an SDK test file with the in-process
// mock, and what importing the package loads (the README's snippets: doc-blocks.ts).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { cleanEnv } from '../support/reference-cli.ts';
import { run, type InstalledKit } from './installed-kit.ts';
import { assertProjectChecked, type SuiteTypeChecks } from './type-checks.ts';

/**
 * A team's own project for the tests of the enclosing `describe`: the consumer files
 * (tests/packaging/consumer/) copied in, and the tarball installed beside the team's own tools.
 * Its tests read its folder through the function returned.
 */
export function teamProjectPerSuite(installedKit: () => InstalledKit): () => string {
  let folder: string | undefined;
  before(async () => {
    const { work, tarballPath } = installedKit();
    const team = join(work, 'team');
    mkdirSync(join(team, 'api-tests'), { recursive: true });
    writeFileSync(join(team, 'package.json'), '{ "name": "our-sdk", "private": true, "type": "module" }\n');
    const consumer = join(REPO_ROOT, 'tests', 'packaging', 'consumer');
    copyFileSync(join(consumer, 'sdk-against-mock.ts'), join(team, 'sdk.test.ts'));
    copyFileSync(join(consumer, 'playwright.config.ts'), join(team, 'playwright.config.ts'));
    copyFileSync(join(consumer, 'own-api.ts'), join(team, 'api-tests', 'own.spec.ts'));
    copyFileSync(join(consumer, 'tsconfig.json'), join(team, 'tsconfig.json'));
    copyFileSync(join(consumer, 'global-fetch.ts'), join(team, 'global-fetch.test.ts'));
    copyFileSync(join(REPO_ROOT, 'examples', 'mock-behaviours.test.ts'), join(team, 'behaviours.test.ts'));
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
    folder = team;
  });
  return () => {
    if (!folder) throw new Error('The team project is read before its before hook ran.');
    return folder;
  };
}

/** The kit from a team's TypeScript: its declarations type-check, its mock runs, its import stays small. */
export function teamTypeScriptTests(
  installedKit: () => InstalledKit,
  teamFolder: () => string,
  typeChecks: () => Promise<SuiteTypeChecks>,
): void {
  // The team's config against Node 20's types (its @types/node) and against Node 22's: one build
  // with the docs' checks (type-checks.ts).
  test('tsc --noEmit (strict) accepts the test file and the config against the emitted declarations', async () => {
    const { checked, team } = await typeChecks();
    assertProjectChecked(checked, team.node20);
  });

  test("the same against Node 22's types: the mock's dispatcher fits its global fetch too", async () => {
    const { checked, team } = await typeChecks();
    assert.equal(checked.code, 0, checked.output);
    const files = assertProjectChecked(checked, team.node22).split('\n');
    assert.ok(
      files.some((file) => /types-node-22\/globals\.d\.ts$/.test(file)),
      'Node 22 types read',
    );
    assert.ok(!files.some((file) => /@types\/node\/globals\.d\.ts$/.test(file)), 'and not Node 20 types');
  });

  test('an SDK test file with the in-process mock passes and exits on its own', async () => {
    const team = teamFolder();
    // Outside this test runner's own context: a child of `node --test` reports to it otherwise.
    const env = cleanEnv();
    delete env.NODE_TEST_CONTEXT;
    const tested = await run(process.execPath, ['--import', 'tsx', '--test', 'sdk.test.ts'], team, env);
    assert.equal(tested.code, 0, `${tested.stdout}\n${tested.stderr}`);
    assert.match(tested.stdout, /# pass 2/);
    assert.match(tested.stdout, /# fail 0/);
  });

  test('the behaviours example (examples/mock-behaviours.test.ts) passes from the tarball', async () => {
    const team = teamFolder();
    const env = cleanEnv();
    delete env.NODE_TEST_CONTEXT;
    const tested = await run(
      process.execPath,
      ['--import', 'tsx', '--test', 'behaviours.test.ts'],
      team,
      env,
    );
    assert.equal(tested.code, 0, `${tested.stdout}\n${tested.stderr}`);
    assert.match(tested.stdout, /# pass 6/);
    assert.match(tested.stdout, /# fail 0/);
  });

  test("Node's global fetch with the mock's dispatcher: type-checked above, and it runs", async () => {
    const team = teamFolder();
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
    const team = teamFolder();
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
}
