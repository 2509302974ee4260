// The verdict of a variant's run under either profile, from its rule results, by the reporter's
// own rule (conformance/report/verdict.ts): every run of the campaign is strict, and the verdict
// the default profile would give follows from the same rule results.
import { exitCodeFor, overallVerdict } from '../conformance/report/verdict.ts';
import { RULES } from '../conformance/catalog/rules.ts';
import type { Profile } from '../conformance/deployment/target.ts';
import type { OverallVerdict } from '../schemas/generated/conformance-report.ts';
import type { VariantRun } from './campaign.ts';

/** SETUP ERROR when the preflight stopped the run; else NOT CONFORMANT when a MUST rule failed, … */
export function verdictOf(run: Pick<VariantRun, 'results' | 'setupStage'>, profile: Profile): OverallVerdict {
  if (run.setupStage !== undefined) return 'SETUP ERROR';
  return overallVerdict(ruleVerdicts(run.results), profile);
}

/** The exit code `npm run conformance` gives such a run (strict profile). */
export function exitCodeOfRun(run: Pick<VariantRun, 'results' | 'setupStage'>): number {
  const verdict = verdictOf(run, 'strict');
  return exitCodeFor({ verdict, rules: verdict === 'SETUP ERROR' ? [] : ruleVerdicts(run.results) }, false);
}

/** A rule without a verdict (the run wrote no report) counts as not evaluated, as in a report. */
function ruleVerdicts(results: VariantRun['results']) {
  return RULES.map((rule) => ({
    level: rule.level,
    verdict: results[rule.id] ?? 'not-evaluated',
  }));
}
