// Knock-on failures, derived instead of listed: each rule's declaration says once which answers of
// the target its verdict reads (`reads`, conformance/run/rule-declaration.ts); a fault that changes
// a whole kind of answer says so once (`knockOn`), and every rule reading that kind is expected to
// fail against it. A new rule is classified in its declaration (the compiler asks for it) and never
// needs an edit of the faults.
import { RULE_DECLARATIONS, type RuleId } from '../conformance/catalog/rules.ts';
import type { Reading } from '../conformance/run/rule-declaration.ts';

/** What a fault does to a whole kind of answer. */
export type KnockOn = 'authenticated-path-not-found';

const KNOCK_ONS: Readonly<Record<KnockOn, { breaks: Reading; reason: string }>> = {
  'authenticated-path-not-found': {
    breaks: 'authenticated-path',
    reason: 'Its request to {base_url}/customers gets 404 not_found.',
  },
};

/**
 * A rule that needs the other tenant's key is not evaluated, not failed, where the authenticated
 * path answers 404: that key is then never shown to be served its own tenant's list, so the target's
 * roles are not shown (conformance/run/target-roles.ts) and the rule judges nothing.
 */
function rolesUnshown(knockOn: KnockOn | undefined, needs: readonly string[]): boolean {
  return knockOn === 'authenticated-path-not-found' && needs.includes('credentials.otherTenant');
}

/** A fault's entry, as far as its consequences go (fault.ts). */
interface Consequences {
  catches: readonly RuleId[];
  alsoFails?: Readonly<Partial<Record<RuleId, string>>>;
  knockOn?: KnockOn;
}

/**
 * Every rule that fails against a fault besides those it `catches`, each with why: its own
 * `alsoFails`, and the rules that read the kind of answer its `knockOn` changes.
 */
export function consequencesOf(fault: Consequences): Partial<Record<RuleId, string>> {
  const knockOn = fault.knockOn === undefined ? undefined : KNOCK_ONS[fault.knockOn];
  const derived: Partial<Record<RuleId, string>> = {};
  if (knockOn) {
    for (const { id, reads, needs } of RULE_DECLARATIONS)
      if (reads === knockOn.breaks && !fault.catches.includes(id) && !rolesUnshown(fault.knockOn, needs))
        derived[id] = knockOn.reason;
  }
  return { ...derived, ...fault.alsoFails };
}
