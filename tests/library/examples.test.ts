// The mock's examples run as a team runs them, importing the package by its name (here resolved to
// the compiled dist/, as installed): the node:test file with a test per situation an SDK author
// meets (examples/mock-behaviours.test.ts), and the Playwright Test file with the journal's
// matchers (examples/mock-matchers.spec.ts). The packaging test runs the first from the tarball,
// and the Vitest and Jest files (tests/packaging/installed-examples.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertDistCurrent } from '../support/compiled-kit.ts';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { cleanEnv } from '../support/reference-cli.ts';
import { scratchDirectory } from '../support/scratch.ts';

const run = promisify(execFile);

function childEnv(): NodeJS.ProcessEnv {
  // Outside this test runner's own context: a child of `node --test` reports to it otherwise.
  const env = cleanEnv();
  delete env.NODE_TEST_CONTEXT;
  return env;
}

test('examples/mock-behaviours.test.ts passes: every situation of an SDK test in a few lines', async () => {
  assertDistCurrent();
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--test', 'examples/mock-behaviours.test.ts'],
    { cwd: REPO_ROOT, env: childEnv(), timeout: 120_000 },
  );
  assert.match(stdout, /# pass 6\n/);
  assert.match(stdout, /# fail 0\n/);
});

test('examples/mock-matchers.spec.ts passes under Playwright Test with expect.extend(journalMatchers)', async () => {
  assertDistCurrent();
  const folder = scratchDirectory('mock-matchers-');
  const config = join(folder, 'playwright.config.mjs');
  const settings = {
    testDir: join(REPO_ROOT, 'examples'),
    testMatch: 'mock-matchers.spec.ts',
    reporter: 'line',
    outputDir: join(folder, 'results'),
    workers: 1,
  };
  writeFileSync(config, `export default ${JSON.stringify(settings)};\n`);
  const { stdout } = await run(
    process.execPath,
    [join(REPO_ROOT, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '-c', config],
    { cwd: REPO_ROOT, env: childEnv(), timeout: 180_000 },
  );
  assert.match(stdout, /2 passed/);
});
