// The ways a rule's check ends without a verdict of its own: "not applicable" (the target offers
// nothing the rule could check) and "not evaluated" (an input is missing). Thrown, and turned into
// the test's annotation and skip by conformance/run/conformance-rule.ts, so that a rule's
// declaration (and the catalog that assembles them) never loads Playwright.
import { ANNOTATION } from './annotations.ts';

export class RuleEnd extends Error {
  constructor(
    /** The annotation the reporter reads the rule's verdict from. */
    readonly annotation: (typeof ANNOTATION)['notApplicable' | 'notEvaluated'],
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'RuleEnd';
  }
}

/** Ends the current rule as "not applicable": it needs what the target does not offer. Never a pass. */
export function notApplicable(reason: string): never {
  throw new RuleEnd(ANNOTATION.notApplicable, reason);
}

/** Ends the current rule as "not evaluated": never a pass, always with the reason. */
export function notEvaluated(reason: string): never {
  throw new RuleEnd(ANNOTATION.notEvaluated, reason);
}
