// A leak seen once is a failure: behind a front that answers ONE keyless request with another
// tenant's list (leaking-front.ts), a run fails whatever a retry later sees — with `--retries 1`
// the rule that saw the leak is re-run and passes, and the verdict is still NOT CONFORMANT with
// the leaking try's evidence. The same leak landing on the keyless request the suite sends to
// learn the tenants' data fails AUTH-MISSING-HEADER, though no rule's test sent it (the run's checker).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConformanceRun } from '../support/conformance-run.ts';
import { runNamed, runTargetsTogether } from '../support/batched-runs.ts';
import type { GateFront } from './gate-front.ts';
import { startLeakingFront } from './leaking-front.ts';
import { writeIndependentTarget } from './independent-target.ts';
import { independentServerPerSuite } from '../support/independent-deployment.ts';
import { assertNotConformant, probe } from './run-support.ts';

const ACME = 'acme.api.localhost';
const KEYLESS = [
  ['Accept', 'application/json'],
  ['Content-Type', 'application/json'],
] as const;

describe('a front that leaks another tenant’s data to one keyless request', () => {
  const independentServer = independentServerPerSuite();

  test('shown by direct requests: the first keyless request gets globex’s list, the next 401', async () => {
    const server = independentServer();
    const front = await startLeakingFront(server, 1);
    try {
      const first = await probe({ port: front.port, ca: front.caPem, host: ACME, headers: KEYLESS });
      const second = await probe({ port: front.port, ca: front.caPem, host: ACME, headers: KEYLESS });
      const globexList = await probe({
        port: server.port,
        ca: server.caPem,
        host: 'globex.api.localhost',
        headers: [['Authorization', `Bearer ${server.keys.globexLiveFull}`]],
      });
      assert.equal(first.status, 200);
      assert.equal(first.body, globexList.body, "the first keyless request got globex's list");
      assert.equal(second.status, 401);
    } finally {
      await front.close();
    }
  });

  // The three runs below, each a run of `run --target` of its own would be, checked in one batch:
  // each through a front of its own, whose count of keyless requests is its run's alone.
  const RUNS = {
    retried: { leakAt: 2, options: { retries: 1 } },
    'error-body-shape': { leakAt: 2, options: { grep: '@ERROR-BODY-SHAPE' } },
    learning: { leakAt: 1, options: {} },
  } as const;
  const fronts: GateFront[] = [];
  let runs: Map<string, ConformanceRun>;
  before(
    async () => {
      const server = independentServer();
      const targets = [];
      for (const [name, { leakAt, options }] of Object.entries(RUNS)) {
        const front = await startLeakingFront(server, leakAt);
        fronts.push(front);
        const target = await writeIndependentTarget(server, { ...front, name: 'leaking front' });
        targets.push({ name, file: target.file, env: target.env, ...options });
      }
      runs = await runTargetsTogether(targets);
    },
    { timeout: 600_000 },
  );
  after(async () => {
    for (const front of fronts) await front.close();
  });
  const runOf = (name: keyof typeof RUNS): ConformanceRun => runNamed(runs, name);

  test('--retries 1, the leak on a rule’s request: NOT CONFORMANT, the leaking try’s evidence reported', () => {
    const run = runOf('retried');
    assert.equal(run.report?.scope?.settings?.retries, 1, 'the run retried a failed rule once');
    assertNotConformant(run, { 'AUTH-MISSING-HEADER': 'fail' });
    const rule = run.report?.rules.find((candidate) => candidate.id === 'AUTH-MISSING-HEADER');
    assert.match(rule?.message ?? '', /the answer holds data of the other tenant/);
    assert.match(rule?.message ?? '', /a leak seen once is a failure/);
    assert.equal(rule?.evidence?.[0]?.status, 200);
  });

  test('the leak on a keyless request of a rule that does not judge data (ERROR-BODY-SHAPE skips a success): that rule fails', () => {
    const run = runOf('error-body-shape');
    assert.equal(run.report?.scope?.grep, '@ERROR-BODY-SHAPE');
    assert.equal(run.report?.verdict, 'NOT CONFORMANT', run.stdout);
    const rule = run.report?.rules.find((candidate) => candidate.id === 'ERROR-BODY-SHAPE');
    assert.equal(rule?.verdict, 'fail');
    assert.match(
      rule?.message ?? '',
      /keyless request that gets data is a failure wherever the suite sees it/,
    );
    assert.equal(rule?.evidence?.[0]?.status, 200);
  });

  test('the leak on the keyless request that learns the tenants’ data: NOT CONFORMANT by AUTH-MISSING-HEADER', () => {
    const run = runOf('learning');
    assertNotConformant(run, { 'AUTH-MISSING-HEADER': 'fail' });
    const rule = run.report?.rules.find((candidate) => candidate.id === 'AUTH-MISSING-HEADER');
    assert.match(rule?.message ?? '', /sent by learning the tenants' data \(before the checks\)/);
    assert.match(rule?.message ?? '', /answered with data of the other tenant/);
    assert.equal(rule?.evidence?.[0]?.status, 200);
  });
});
