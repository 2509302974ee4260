// The verdict of one conformance run, computed from its rule results. The conformance reporter
// (issue 4) will write the verdict into its JSON report; this one function then gives way to
// reading it from there.
import { RULES, type RuleId } from '../../conformance/rules.ts';
import type { Profile } from '../../conformance/target.ts';
import type { RuleResult } from './campaign.ts';

export type Verdict = 'CONFORMANT' | 'NOT CONFORMANT';

/** NOT CONFORMANT when a MUST rule failed, or under `strict` an HTTP rule. */
export function verdictOf(results: Readonly<Record<RuleId, RuleResult>>, profile: Profile): Verdict {
  const failsRun = RULES.some(
    (rule) =>
      results[rule.id] === 'failed' &&
      (rule.level === 'MUST' || (rule.level === 'HTTP' && profile === 'strict')),
  );
  return failsRun ? 'NOT CONFORMANT' : 'CONFORMANT';
}
