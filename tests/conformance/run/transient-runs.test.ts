// A target that stays transient is never judged, end to end: behind a gateway that answers one
// kind of request 429 every time (here every request with the Basic scheme), the rule that sends
// it ends as ERROR with the fix — not FAIL, and not a pass of "refused" either — and the verdict
// is INCOMPLETE with exit 3, while every other rule is judged as usual and passes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RULES, ruleById } from '../../../conformance/catalog/rules.ts';
import type { ConformanceRun } from '../../support/conformance-run.ts';
import { runNamed, runTargetsTogether } from '../../support/batched-runs.ts';
import { ENV } from '../../../conformance/env.ts';
import { scanDirectory, secretForms } from '../../support/artifact-scan.ts';
import { NOT_APPLICABLE_BY_NATURE, notApplicableByNature } from '../../support/not-applicable-by-nature.ts';
import { startGateFront, type GateFront } from '../../independent-implementation/gate-front.ts';
import {
  writeIndependentTarget,
  type WrittenTarget,
} from '../../independent-implementation/independent-target.ts';
import { startIndependentServer, type IndependentServer } from '../../independent-implementation/server.ts';

const LIMITED_RULE = 'AUTH-OTHER-SCHEME-REJECTED';

let server: IndependentServer;
let front: GateFront;
let everything: GateFront;
let target: WrittenTarget;
let limited = 0;
let refused = 0;
/** The two runs of this file, by name, checked in one batch (each as `run --target` of its own). */
let runs: Map<string, ConformanceRun>;

before(
  async () => {
    server = await startIndependentServer();
    front = await startGateFront({
      upstreamPort: server.port,
      upstreamCa: server.caPem,
      gate: (request) => {
        if (!/^basic /i.test(request.headers.authorization ?? '')) return { pass: true };
        limited += 1;
        return {
          answer: {
            status: 429,
            // The policy it announces keeps the run's pace high: this test is about the verdict.
            headers: { 'Content-Type': 'application/json', 'Retry-After': '0', 'RateLimit-Policy': '50;w=1' },
            body: '{"error":{"code":"rate_limited","message":"Too many requests."}}',
          },
        };
      },
    });
    target = await writeIndependentTarget({ ...server, port: front.port, caPem: front.caPem });
    // A front that answers 429 with a long Retry-After to everything.
    everything = await startGateFront({
      upstreamPort: server.port,
      upstreamCa: server.caPem,
      gate: () => {
        refused += 1;
        return {
          answer: {
            status: 429,
            headers: { 'Content-Type': 'application/json', 'Retry-After': '120' },
            body: '{"error":{"code":"rate_limited","message":"Too many requests."}}',
          },
        };
      },
    });
    const behind = await writeIndependentTarget({
      ...server,
      port: everything.port,
      caPem: everything.caPem,
    });
    runs = await runTargetsTogether([
      // --max-retries 2
      { name: 'limited', file: target.file, env: target.env, settings: { [ENV.maxRetries]: '2' } },
      // --retry-budget 5
      { name: 'everything', file: behind.file, env: behind.env, settings: { [ENV.retryBudget]: '5' } },
    ]);
  },
  { timeout: 600_000 },
);

after(async () => {
  await everything.close();
  await front.close();
  await server.close();
});

const runOf = (name: string): ConformanceRun => runNamed(runs, name);

test('a request answered 429 at every try: its rule is ERROR naming the fix, the verdict INCOMPLETE, exit 3', () => {
  const run = runOf('limited');
  assert.equal(run.report?.scope?.settings?.maxRetries, 2);
  assert.equal(run.exitCode, 3);
  assert.equal(run.report?.verdict, 'INCOMPLETE');
  const byVerdict = (verdict: string): string[] =>
    (run.report?.rules ?? []).filter((rule) => rule.verdict === verdict).map((rule) => rule.id);
  assert.deepEqual(byVerdict('error'), [LIMITED_RULE]);
  assert.deepEqual(byVerdict('fail'), []);
  // The gate speaks HTTP/1.1 alone: the rules of HTTP/2's own are not applicable, never passed;
  // so are the rules the implementation gives nothing to check (no cookie set, no ETag served).
  assert.deepEqual(
    byVerdict('not-applicable').sort(),
    [
      ...RULES.filter((each) => ruleById(each.id).http2Only).map((each) => each.id),
      ...NOT_APPLICABLE_BY_NATURE.map(({ id }) => id),
    ].sort(),
  );
  for (const rule of run.report?.rules ?? [])
    if (NOT_APPLICABLE_BY_NATURE.some(({ id }) => id === rule.id))
      assert.ok(notApplicableByNature(rule), `${rule.id}: ${rule.message ?? ''}`);
  assert.equal(
    byVerdict('pass').length,
    (run.report?.rules.length ?? 0) - 1 - byVerdict('not-applicable').length,
  );
  const rule = run.report?.rules.find((candidate) => candidate.id === LIMITED_RULE);
  // Other requests were served while this one was retried: the message names the front, and the 429.
  assert.match(
    rule?.message ?? '',
    /only transient answers.*(a front refused these requests, not the deployment: it answered 429 to all 3 tries|rate-limited this run.*--max-rps)/s,
  );
  assert.equal(limited, 3, 'the first try and --max-retries 2');
  assert.equal(rule?.retries, 2);
  assert.deepEqual(
    {
      rateLimited: run.report?.traffic?.rateLimited,
      retries: run.report?.traffic?.retries,
    },
    { rateLimited: 3, retries: 2 },
  );
  const { findings } = scanDirectory(run.reportDir, secretForms(target.env));
  assert.deepEqual(findings, []);
});

test('a front that answers 429 with a long Retry-After to everything: after a few requests the rest are not sent, every rule ERROR naming the front', () => {
  const run = runOf('everything');
  assert.equal(run.report?.scope?.settings?.retryBudgetSeconds, 5);
  assert.equal(run.exitCode, 3);
  assert.equal(run.report?.verdict, 'INCOMPLETE');
  assert.deepEqual(
    (run.report?.rules ?? []).filter((rule) => rule.verdict === 'pass' || rule.verdict === 'fail'),
    [],
  );
  // Each request got one try (the Retry-After is longer than the budget); after ten in a row
  // with nothing served, no rule sends any more: a few dozen requests, not one or more per rule.
  assert.ok(refused <= 20, `the front got ${refused} requests`);
  const notSent = (run.report?.rules ?? []).filter((rule) =>
    /^not sent: a front refused the run/.test(rule.message ?? ''),
  );
  assert.ok(notSent.length > 30, JSON.stringify(run.report?.rules.map((rule) => rule.message)));
});
