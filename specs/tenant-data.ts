// What the rules that look for a tenant's data in an answer need first: that data, learned before
// any rule ran (conformance/judging/knowledge.ts). Without it they can say nothing.
import { Inconclusive } from '../conformance/judging/failures.ts';
import { notEvaluated } from '../conformance/run/rule-end.ts';
import type { Knowledge } from '../conformance/judging/knowledge.ts';

/** A rule that looks for the other tenant's data cannot say anything if that tenant has none. */
export function requireOtherTenantValues(knowledge: Knowledge): void {
  if (knowledge.otherUnanswered !== undefined)
    throw new Inconclusive(
      `The other tenant's data could not be learned, so whose data an answer holds can't be told: ${knowledge.otherUnanswered}`,
    );
  if (!knowledge.other || knowledge.other.values.size === 0) {
    notEvaluated(
      'not evaluated: GET {otherTenantBaseUrl}/customers with credentials.otherTenant gave no data to recognise (no answer, an answer other than 200, or no customers). Check that address and key, and point otherTenantBaseUrl at a tenant that has customers.',
    );
  }
}

/** A rule that looks for the tenant's own data in an answer cannot say anything if it has none. */
export function requireOwnValues(knowledge: Knowledge): void {
  if (!knowledge.own || knowledge.own.values.size === 0) {
    notEvaluated(
      'not evaluated: GET {base_url}/customers with credentials.fullAccess gave no data to recognise (no answer, an answer other than 200, or no customers). Check that key, and point baseUrl at a tenant that has customers.',
    );
  }
}
