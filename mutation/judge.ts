// What a faulty variant's run should look like, by its catalog entry, and how the run compares:
// the one reading of a campaign that both the test and the generated matrix use.
import { RULES, type RuleId } from '../conformance/catalog/rules.ts';
import { FAULTS, type FaultName } from './catalog.ts';
import type { VariantRun } from './campaign.ts';
import { expectation, failingVerdict, isFailing } from './expectations.ts';

export { expectation, failingVerdict, isFailing, type Expectation } from './expectations.ts';

export interface Judgement {
  /** Rules of `catches` that failed (an ADVISORY one: warned). */
  caught: RuleId[];
  /** Rules of `catches` that did not: the suite missed the fault. */
  missed: RuleId[];
  /** Rules that failed without being expected to: neither caught nor a consequence (knock-on.ts). */
  unexpected: RuleId[];
  /** Expected consequences that did not fail: the catalog entry (or knock-on.ts) is wrong. */
  notFailing: RuleId[];
  /** Rules whose verdict is `error` (the check could not run), or without one (no report). */
  errored: RuleId[];
}

export function judge(fault: FaultName, run: VariantRun): Judgement {
  const judgement: Judgement = { caught: [], missed: [], unexpected: [], notFailing: [], errored: [] };
  const stage = FAULTS[fault].stopsPreflightAt;
  if (stage !== undefined) {
    // No rule runs after a failed preflight: the fault is caught when the preflight stops the run
    // at its stage, and that stands for the rules it `catches`.
    const stopped = run.reportedVerdict === 'SETUP ERROR' && run.setupStage === stage;
    judgement[stopped ? 'caught' : 'missed'].push(...FAULTS[fault].catches);
    return judgement;
  }
  for (const { id } of RULES) {
    const verdict = run.results[id];
    const expected = expectation(fault, id);
    if (verdict === 'error' || verdict === undefined) judgement.errored.push(id);
    else if (expected === 'catches') judgement[verdict === failingVerdict(id) ? 'caught' : 'missed'].push(id);
    else if (expected === 'consequence' && verdict !== failingVerdict(id)) judgement.notFailing.push(id);
    else if (expected === undefined && isFailing(verdict)) judgement.unexpected.push(id);
  }
  return judgement;
}

/** A fault is killed when every rule it exists for caught it. */
export function killed(judgement: Judgement): boolean {
  return judgement.caught.length > 0 && judgement.missed.length === 0 && judgement.errored.length === 0;
}
