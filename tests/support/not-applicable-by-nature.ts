// The rules a correct deployment can leave not applicable by what it is, not by a fault: each with
// the reason its message must give, so that a CONFORMANT run's not-applicable rule is one of these,
// said so, and never a pass the suite did not check.
import type { RuleId } from '../../conformance/catalog/rules.ts';

export const NOT_APPLICABLE_BY_NATURE: readonly { id: RuleId; why: RegExp }[] = [
  // A deployment that sets no cookie on a served answer gives the cookie rule nothing to send back.
  { id: 'AUTH-COOKIE-NOT-CREDENTIAL', why: /set no cookie on a served answer/ },
  // A deployment that serves no ETag gives the conditional rule no validator to send back.
  { id: 'TENANT-CONDITIONAL-UNKNOWN-INDISTINGUISHABLE', why: /served without an ETag/ },
];

/** Whether `rule` is not applicable for one of the reasons above, its message saying which. */
export function notApplicableByNature(rule: { id: string; verdict: string; message?: string }): boolean {
  return (
    rule.verdict === 'not-applicable' &&
    NOT_APPLICABLE_BY_NATURE.some(({ id, why }) => id === rule.id && why.test(rule.message ?? ''))
  );
}
