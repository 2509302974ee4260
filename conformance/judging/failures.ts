// The two ways a check ends other than by passing: the target does not follow the rule
// (ConformanceFailure), or nothing could be decided (Inconclusive). Apart from the assertions
// (checks.ts, which re-exports them) so that a rule's declaration can throw one without loading
// the assertions' code with the catalog (conformance/catalog/rules.ts).
import type { Evidence } from '../../schemas/generated/conformance-report.ts';

export class ConformanceFailure extends Error {
  readonly evidence: Evidence[];
  /**
   * The target served a value it must never serve there (a tenant's data to a request that must
   * get none): a failure no later try undoes (`--retries` re-runs the rule, the failure stays).
   */
  readonly leak: boolean;
  constructor(message: string, evidence: Evidence[], leak = false) {
    super(message);
    this.name = 'ConformanceFailure';
    this.evidence = evidence;
    this.leak = leak;
  }
}

/**
 * The check could not decide — above all, the target gave no HTTP answer (refused, reset, timed
 * out, not sent): nothing is known of the rule, so it ends as an ERROR, never as a failure.
 */
export class Inconclusive extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Inconclusive';
  }
}
