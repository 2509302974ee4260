// The predicates a rule's own check (checks.ts) and the run's checker (run-checker.ts) both read,
// so that the two never disagree on what an answer holds or what a request carried: the text of an
// answer that is searched for a tenant's values (its headers and its body), the values of a tenant
// found in it, and whether a request carried Authorization at all.
import { leakedValues, type TenantValues } from './tenant-knowledge.ts';

/** What is searched for a tenant's data: every header of the answer, then its body. */
export function answerText(headers: Readonly<Record<string, string>>, bodyText: string): string {
  return `${JSON.stringify(headers)}\n${bodyText}`;
}

/** The values of `tenant` in the answer's text (at most `limit`, for a message). */
export function dataOf(text: string, tenant: TenantValues, limit = 3): string[] {
  return leakedValues(text, tenant, limit);
}

/** The request's Authorization field lines, in order (any letter case of the name). */
export function authorizationValues(headers: readonly (readonly [string, string])[]): string[] {
  return headers.filter(([name]) => name.toLowerCase() === 'authorization').map(([, value]) => value);
}

/** Whether the request carried an Authorization header at all. */
export function carriesAuthorization(headers: readonly (readonly [string, string])[]): boolean {
  return authorizationValues(headers).length > 0;
}
