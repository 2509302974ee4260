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

/** The request fields that make a GET conditional on the client's stored copy (RFC 9110 §13.1). */
const VALIDATOR_FIELDS = ['if-none-match', 'if-modified-since'];

/**
 * A `304 Not Modified` to a conditional request tells the client that the copy it stored is the
 * current representation of the URL: the client then shows that copy — the host's tenant's data,
 * given in effect though no byte of it was sent. So a 304 is judged as data of the host's tenant:
 * to a request without a valid key for the host it breaks what a 200 with the data would (RFC 9110
 * §13.2.1: preconditions are evaluated only where the request would otherwise succeed). Returns
 * the request's validator lines (`If-None-Match: "…"`), for the message; undefined when the answer
 * is no such confirmation.
 */
export function confirmedCopy(
  status: number,
  requestHeaders: readonly (readonly [string, string])[],
): string | undefined {
  if (status !== 304) return undefined;
  const lines = requestHeaders.filter(([name]) => VALIDATOR_FIELDS.includes(name.toLowerCase()));
  return lines.length === 0 ? undefined : lines.map(([name, value]) => `${name}: ${value}`).join(', ');
}
