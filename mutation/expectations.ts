// What the fault catalog expects of a rule against a variant, in the report's own vocabulary
// (RuleVerdict of conformance.json): shared by the judge, the matrix and the campaign, which tells
// the suite what to expect.
import { ruleById, type RuleId } from '../conformance/catalog/rules.ts';
import type { RuleVerdict } from '../schemas/generated/conformance-report.ts';
import { FAULTS, type FaultName } from './catalog.ts';
import { consequencesOf } from './knock-on.ts';

/** Why a rule is expected to fail against a variant: the fault's purpose, or a consequence of it. */
export type Expectation = 'catches' | 'consequence' | undefined;

export function expectation(fault: FaultName, id: RuleId): Expectation {
  const entry = FAULTS[fault];
  if (entry.catches.includes(id)) return 'catches';
  return consequencesOf(entry)[id] === undefined ? undefined : 'consequence';
}

/** The rules that fail against `fault` besides those it catches, each with why. */
export function consequences(fault: FaultName): Partial<Record<RuleId, string>> {
  return consequencesOf(FAULTS[fault]);
}

/** How a failing rule shows in a strict run: `fail`, or `warning` for an ADVISORY rule. */
export function failingVerdict(id: RuleId): RuleVerdict {
  return ruleById(id).level === 'ADVISORY' ? 'warning' : 'fail';
}

export function isFailing(verdict: RuleVerdict | undefined): boolean {
  return verdict === 'fail' || verdict === 'warning';
}
