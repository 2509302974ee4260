// Once the target has stopped answering, every rule still to run is skipped as "not sent" before
// it sends anything (conformance/run/test.ts, notSentGuard) — the first rule of a worker too,
// which Playwright starts after each failed test: the answer watch's file is a hand-over of the
// project's (runEnvironment), in place only once the target fixture has run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV } from '../../../conformance/env.ts';
import { ANNOTATION } from '../../../conformance/run/annotations.ts';
import { REPO_ROOT, runBounded } from '../../support/conformance-run.ts';
import { cleanEnv } from '../../support/reference-cli.ts';
import { compiledModule } from '../../support/compiled-kit.ts';
import { scratchDirectory } from '../../support/scratch.ts';

interface JsonReport {
  suites: { specs: { tests: { status: string; annotations: { type: string }[] }[] }[] }[];
}

test("a worker's first rule, after the target stopped answering, is skipped as not sent", async () => {
  const work = scratchDirectory('not-sent-guard-');
  // Three exchanges in a row without an answer: the run's watch says the target has stopped.
  const watch = join(work, 'consecutive-no-answers');
  writeFileSync(watch, '3');
  writeFileSync(
    join(work, 'guard.spec.mjs'),
    [
      `import { test } from ${JSON.stringify(compiledModule('conformance/run/test'))};`,
      "test('the first test of its worker', async () => {});",
      '',
    ].join('\n'),
  );
  const declaredTarget = {
    name: 'stopped',
    mode: 'file',
    file: join(work, 'target.json'),
    baseUrl: 'https://acme.api.example/v1',
    plainHttpBaseUrl: 'http://acme.api.example/v1',
    credentialVariables: {},
    profile: 'default',
    hosts: {},
  };
  writeFileSync(
    join(work, 'playwright.config.mjs'),
    [
      `import { resolveRunSettings } from ${JSON.stringify(compiledModule('conformance/settings'))};`,
      'export default {',
      `  testDir: ${JSON.stringify(work)},`,
      '  testMatch: /guard\\.spec\\.mjs$/,',
      `  reporter: [['json', { outputFile: ${JSON.stringify(join(work, 'results.json'))} }]],`,
      '  projects: [{ name: "rules", use: {',
      '    runSettings: resolveRunSettings({}, {}),',
      `    runEnvironment: ${JSON.stringify({ [ENV.answerWatchFile]: watch })},`,
      `    declaredTarget: ${JSON.stringify(declaredTarget)},`,
      '  } }],',
      '};',
      '',
    ].join('\n'),
  );
  const run = await runBounded(
    join(REPO_ROOT, 'node_modules', '.bin', 'playwright'),
    ['test', '--config', join(work, 'playwright.config.mjs')],
    cleanEnv(),
    60_000,
  );
  const results = JSON.parse(readFileSync(join(work, 'results.json'), 'utf8')) as JsonReport;
  const outcome = results.suites[0]?.specs[0]?.tests[0];
  assert.equal(outcome?.status, 'skipped', `${run.stdout}\n${run.stderr}`);
  assert.ok(
    outcome.annotations.some((annotation) => annotation.type === ANNOTATION.notSent),
    'the reporter reads its ERROR from the not-sent annotation',
  );
});
