// What the suite learns of the tenants is learned once per run, by the set-up project
// (conformance/run/setup-learning.ts), and read by every rule worker from the run's state
// directory. Against a deployment that fails many rules — the independent implementation whose
// error bodies are HTML — Playwright would start a new worker after each failed test, but in the
// `run` command a rule that fails keeps its worker (conformance/run/failed-rules-keep-worker.ts);
// no worker walks the tenants' lists again, and the one walk is in exchanges.har once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConformance, type ConformanceRun } from '../../support/conformance-run.ts';
import { startIndependentServer, type IndependentServer } from '../../independent-implementation/server.ts';
import { writeIndependentTarget } from '../../independent-implementation/independent-target.ts';
import { FAILED_KEPT_WORKER } from '../../../conformance/run/failed-rules-keep-worker.ts';

const LEARNING = "learning the tenants' data (before the checks)";

interface HarFile {
  log: {
    entries: {
      _rule: string;
      request: { method: string; url: string; headers: { name: string; value: string }[] };
      response: { status: number };
    }[];
  };
}

let server: IndependentServer;
let run: ConformanceRun;

before(async () => {
  server = await startIndependentServer({ errorBodies: 'html' });
  const target = await writeIndependentTarget(server);
  run = await runConformance(['--target', target.file], target.env);
});

after(async () => {
  await server?.close();
});

test('the HTML error bodies fail many rules, each a failed test, all in one worker', () => {
  assert.equal(run.report?.verdict, 'NOT CONFORMANT', run.stderr);
  assert.equal(run.exitCode, 1, run.stderr);
  const failed = run.outcomes.filter((outcome) => outcome.status === 'failed');
  assert.ok(failed.length >= 10, `${failed.length} failed tests: ${failed.map((o) => o.ruleId).join(', ')}`);
  const failedInReport = (run.report?.rules ?? []).filter((rule) => rule.verdict === 'fail');
  assert.deepEqual(
    failedInReport.map((rule) => rule.id).sort(),
    failed.map((outcome) => outcome.ruleId).sort(),
  );
  for (const outcome of failed)
    assert.ok(
      outcome.annotations.some((annotation) => annotation.type === FAILED_KEPT_WORKER),
      `${outcome.ruleId} says it kept its worker`,
    );
  // Marked expected to fail only to keep the worker: Playwright's own reports still count a failure.
  for (const outcome of failed)
    assert.equal(outcome.playwrightOutcome, 'unexpected', `${outcome.ruleId} in Playwright's reports`);
  // One worker for every rule (the run has one: runConformance's --workers=1).
  const workers = new Set(run.outcomes.map((outcome) => outcome.workerIndex));
  assert.equal(workers.size, 1, `the rules ran in workers ${[...workers].join(', ')}`);
});

test("the tenants' lists are walked once in the run, recorded once, and every request the deployment got is in the HAR", (t) => {
  const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as HarFile;
  const learning = har.log.entries.filter((entry) => entry._rule === LEARNING);
  // The keyless request, then each tenant's list from its first page: at least three.
  assert.ok(learning.length >= 3, `${learning.length} learning exchanges`);
  const keys = learning.map(({ request }) => {
    const authorization = request.headers.find(({ name }) => name.toLowerCase() === 'authorization');
    return `${request.method} ${request.url} ${authorization?.value ?? '(no key)'}`;
  });
  assert.deepEqual(
    keys.filter((key, index) => keys.indexOf(key) !== index),
    [],
    'a learning request sent twice',
  );
  // A worker that learned again without recording it would have sent more than the HAR holds.
  const answered = har.log.entries.filter((entry) => entry.response.status > 0);
  t.diagnostic(`${learning.length} learning exchanges; ${server.received.length} requests received`);
  assert.equal(server.received.length, answered.length, 'requests received and answered exchanges recorded');
});
