// The verdict of a variant's run under either profile, from its rule results, by the reporter's
// own rule (conformance/report/verdict.ts): every run of the campaign is strict, and the verdict
// the default profile would give follows from the same rule results.
import { overallVerdict } from '../../conformance/report/verdict.ts';
import { RULES, type RuleId } from '../../conformance/rules.ts';
import type { Profile } from '../../conformance/target.ts';
import type { OverallVerdict, RuleVerdict } from '../../schemas/generated/conformance-report.ts';
import type { RuleResult } from './campaign.ts';

const VERDICT_OF_RESULT: Record<RuleResult, RuleVerdict> = {
  passed: 'pass',
  failed: 'fail',
  warned: 'warning',
  'not-evaluated': 'not-evaluated',
  error: 'error',
  missing: 'not-evaluated',
};

/** NOT CONFORMANT when a MUST rule failed, or under `strict` an HTTP rule. */
export function verdictOf(results: Readonly<Record<RuleId, RuleResult>>, profile: Profile): OverallVerdict {
  return overallVerdict(
    RULES.map((rule) => ({ level: rule.level, verdict: VERDICT_OF_RESULT[results[rule.id]] })),
    profile,
  );
}
