// What the fault catalog expects of a rule against a variant, and how a failing rule shows in a
// run's results: shared by the judge and by the campaign, which tells the suite what to expect.
import { ruleById, type RuleId } from '../../conformance/rules.ts';
import { FAULTS, type FaultName } from '../../reference-server/faults.ts';

/**
 * What became of a rule in one run: failed (a MUST or HTTP rule; strict profile), warned (an
 * ADVISORY rule that failed), not evaluated (for lack of an input or of tenant data), passed;
 * `error` when its check could not run (a defect, a time-out), `missing` when the run wrote no
 * report.
 */
export type RuleResult = 'passed' | 'failed' | 'warned' | 'not-evaluated' | 'error' | 'missing';

/** Why a rule is expected to fail against a variant: the fault's purpose, or a consequence of it. */
export type Expectation = 'catches' | 'alsoFails' | undefined;

export function expectation(fault: FaultName, id: RuleId): Expectation {
  const entry = FAULTS[fault];
  if (entry.catches.includes(id)) return 'catches';
  return entry.alsoFails?.[id] === undefined ? undefined : 'alsoFails';
}

/** How a failing rule shows in a strict run: its test fails, or for an ADVISORY rule, warns. */
export function failingResult(id: RuleId): RuleResult {
  return ruleById(id).level === 'ADVISORY' ? 'warned' : 'failed';
}

export function isFailing(result: RuleResult): boolean {
  return result === 'failed' || result === 'warned';
}

/** The rules whose test the catalog expects to fail against `fault` (ADVISORY ones only warn). */
export function expectedFailures(fault: FaultName): RuleId[] {
  const listed = [...FAULTS[fault].catches, ...(Object.keys(FAULTS[fault].alsoFails ?? {}) as RuleId[])];
  return listed.filter((id) => failingResult(id) === 'failed');
}
