// Proof that the conformance suite can fail: the suite passes the clean reference server
// and, against each faulty variant of the fault catalog (mutation/catalog.ts), fails exactly the rules the
// fault is caught by plus their consequences (those its catalog entry lists, and those
// mutation/knock-on.ts derives) — never another one. Every MUST and HTTP rule fails against a
// fault that targets it. What the fault catalog must be without a run is fault-catalog.test.ts's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RULES, ruleById, type RuleId } from '../../conformance/catalog/rules.ts';
import { NOT_APPLICABLE_ON_REFERENCE } from '../support/rule-declarations.ts';
import { FAULT_NAMES, FAULTS, type FaultName } from '../../mutation/catalog.ts';
import {
  RUNNER_CHECKED_FAULT,
  runCampaign,
  VARIANTS,
  type VariantName,
  type VariantRun,
} from '../../mutation/campaign.ts';
import { judge, killed } from '../../mutation/judge.ts';
import { MATRIX_FILE, REGENERATE_COMMAND, renderMatrix } from '../../mutation/matrix.ts';
import { exitCodeOfRun, reportedVerdictOf, verdictOf } from '../../mutation/variant-verdict.ts';
import { KIT_BIN, nodeArguments } from '../support/compiled-kit.ts';

/**
 * The campaign takes a few minutes on 2 cores; this bound only stops a run that hangs (above the
 * batch's own bound, mutation/campaign.ts, which a loaded machine has come near).
 */
const CAMPAIGN_TIMEOUT_MS = 30 * 60_000;

describe('mutation campaign: the suite against the clean server and every faulty variant', () => {
  let runs = new Map<VariantName, VariantRun>();

  before(
    async () => {
      // The runner's variants by the compiled kit, as the other tests run it (what a user runs).
      const kitCommand = [process.execPath, ...nodeArguments(KIT_BIN)];
      runs = new Map((await runCampaign(VARIANTS, { kitCommand })).map((run) => [run.variant, run]));
    },
    { timeout: CAMPAIGN_TIMEOUT_MS },
  );
  after(() => runs.clear());

  const runOf = (variant: VariantName): VariantRun => {
    const run = runs.get(variant);
    assert.ok(run, `no run of ${variant}`);
    return run;
  };

  test('the clean server passes every rule: nothing fails, warns or is left not evaluated', () => {
    const run = runOf('clean');
    // A rule the reference leaves not applicable says so in its declaration, with why: the clean
    // run's message gives that reason (AUTH-COOKIE-NOT-CREDENTIAL: the reference sets no cookie).
    const notApplicable = NOT_APPLICABLE_ON_REFERENCE;
    for (const { id, why } of notApplicable) {
      assert.equal(run.results[id], 'not-applicable', id);
      assert.ok(run.messages[id]?.includes(why), `${id}: ${run.messages[id]} does not say ${why}`);
    }
    assert.deepEqual(
      RULES.filter(
        (rule) => !notApplicable.some(({ id }) => id === rule.id) && run.results[rule.id] !== 'pass',
      ).map((rule) => `${rule.id}: ${run.results[rule.id]} ${run.messages[rule.id] ?? ''}`),
      [],
      run.stderr,
    );
    assert.equal(verdictOf(run, 'strict'), 'CONFORMANT');
    // Its run is over HTTP/1.1 alone while the server offers HTTP/2 too: partial, so under strict
    // INCOMPLETE, never CONFORMANT (decision 0024) — and nothing else is partial about it.
    assert.deepEqual(
      run.partial.map((reason) => reason.replace(/ \(.*/, '')),
      ['HTTP/2 was not checked, but the target offers it'],
    );
    assert.equal(run.reportedVerdict, 'INCOMPLETE');
    assert.equal(run.exitCode, 0);
  });

  for (const name of FAULT_NAMES) {
    const fault = FAULTS[name];
    test(`${name}: caught by ${fault.catches.join(', ')}`, () => assertCaught(name, runOf(name)));
  }

  test('the batch reads as the runner: a variant checked both ways gives the same results, verdict and exit code', () => {
    const reading = (run: VariantRun) => ({
      results: run.results,
      messages: run.messages,
      reportedVerdict: run.reportedVerdict,
      partial: run.partial,
      setupStage: run.setupStage,
      exitCode: run.exitCode,
    });
    for (const variant of ['clean', RUNNER_CHECKED_FAULT] as const) {
      const run = runOf(variant);
      assert.equal(run.via, 'runner', `${variant} is checked by npm run conformance`);
      assert.ok(run.batchTwin, `${variant} is checked in the batch too`);
      assert.deepEqual(reading(run.batchTwin), reading(run), `${variant}: the batch differs from the runner`);
    }
  });

  test('every MUST and HTTP rule fails against a variant whose fault targets it', () => {
    const caught = new Set(
      FAULT_NAMES.flatMap((name) => (runs.has(name) ? judge(name, runOf(name)).caught : [])),
    );
    assert.deepEqual(
      RULES.filter((rule) => rule.level !== 'ADVISORY' && !caught.has(rule.id)).map((rule) => rule.id),
      [],
    );
  });

  test(`docs/mutation-matrix.md shows this campaign (regenerate with ${REGENERATE_COMMAND})`, async () => {
    const expected = await renderMatrix([...runs.values()]);
    let committed = '';
    try {
      committed = readFileSync(MATRIX_FILE, 'utf8');
    } catch {
      // Missing: reported below like any difference.
    }
    // The lines that differ, so that a cell that changed (or flips from run to run) is named.
    const committedLines = committed.split('\n');
    const differing = expected
      .split('\n')
      .flatMap((line, index) =>
        line === committedLines[index]
          ? []
          : [`committed: ${committedLines[index] ?? ''}\n     now: ${line}`],
      )
      .slice(0, 5);
    assert.ok(
      committed === expected,
      `${MATRIX_FILE} does not match this campaign's results. If the suite, the faults or the catalog changed on purpose, run \`${REGENERATE_COMMAND}\` and commit the file.\n${differing.join('\n')}`,
    );
  });
});

function assertCaught(name: FaultName, run: VariantRun): void {
  const fault = FAULTS[name];
  const judgement = judge(name, run);
  const explain = (ids: readonly RuleId[]): string[] =>
    ids.map((id) => `${id}: ${run.results[id]}${run.messages[id] ? ` — ${run.messages[id]}` : ''}`);
  assert.deepEqual(explain(judgement.errored), [], `the run against ${name} broke. ${run.stderr}`);
  assert.deepEqual(
    judgement.missed,
    [],
    `the suite did not catch ${name}: a bug in the suite (specs/ or conformance/), or in the fault`,
  );
  assert.deepEqual(
    explain(judgement.unexpected),
    [],
    `${name} makes rules fail that its catalog entry does not expect: a spurious failure, or add it to alsoFails with the reason (or classify the rule in mutation/knock-on.ts)`,
  );
  assert.deepEqual(
    judgement.notFailing,
    [],
    `${name}: these expected consequences passed; remove them from its entry (or correct mutation/knock-on.ts)`,
  );
  assert.ok(killed(judgement));

  const targetsMust = fault.catches.some((id) => ruleById(id).level === 'MUST');
  const targetsHttp = fault.catches.some((id) => ruleById(id).level === 'HTTP');
  // A fault the preflight stops can give no rule verdict: SETUP ERROR blocks a gate all the same.
  const blocked = fault.stopsPreflightAt ? 'SETUP ERROR' : 'NOT CONFORMANT';
  if (targetsMust) assert.equal(verdictOf(run, 'default'), blocked);
  if (targetsMust || targetsHttp) assert.equal(verdictOf(run, 'strict'), blocked);
  // The reporter's verdict and the runner's exit code say the same as the rule results.
  assert.equal(run.reportedVerdict, reportedVerdictOf(run));
  assert.equal(run.exitCode, exitCodeOfRun(run), run.stderr);
}
