// Hand-made exchanges for the assertions' unit tests (checks-*.test.ts): one request with a key,
// an answer of any status, body and headers, the ways of getting no answer, and what a check threw.
import assert from 'node:assert/strict';
import { Checks, ConformanceFailure } from '../../../conformance/judging/checks.ts';
import {
  startRequest,
  type FailedExchange,
  type ResponseExchange,
} from '../../../conformance/requests/exchange.ts';
import { KeyNamer } from '../../../conformance/redaction/shown-keys.ts';
import type { TenantValues } from '../../../conformance/judging/tenant-knowledge.ts';

export const KEY = 'mbk_prod_PublicTestValueNotARealKey0001';
export const namer = new KeyNamer([{ variable: 'FULL_ACCESS_KEY', value: KEY }]);
export const acme: TenantValues = { label: 'acme', values: new Set(['ada@acme.example', 'Ada Lovelace']) };
export const globex: TenantValues = {
  label: 'globex',
  values: new Set(['hank@globex.example', 'Hank Scorpio', 'Globex Corp', 'cus_globex_1']),
};
export const check = new Checks(namer, { own: acme, other: globex });
export const bare = new Checks(namer);

export const request = startRequest('GET', 'https://acme.api.example.com/v1/customers', [
  ['Authorization', `Bearer ${KEY}`],
]);

export function answer(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  extra: Partial<ResponseExchange> = {},
): ResponseExchange {
  return {
    kind: 'response',
    request,
    durationMs: 1,
    status,
    headers: { 'content-type': 'application/json', ...headers },
    bodyText: typeof body === 'string' ? body : JSON.stringify(body),
    ...extra,
  };
}
export const refused: FailedExchange = { kind: 'failure', request, durationMs: 1, error: 'ECONNREFUSED' };
export const notSent: FailedExchange = {
  ...refused,
  error: 'not sent: the target stopped answering',
  notSent: true,
};
export const transient: FailedExchange = { ...refused, error: 'every try answered 503', transient: 503 };
export const signalled: FailedExchange = { ...refused, error: 'GOAWAY', signal: 'GOAWAY NO_ERROR' };
export const error = (code: string) => ({ error: { code, message: 'm' } });

/** What `run` threw, for its message and evidence. */
export function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (caught) {
    return caught;
  }
  assert.fail('expected a throw');
}

export function failure(run: () => unknown): ConformanceFailure {
  const caught = thrown(run);
  assert.ok(caught instanceof ConformanceFailure, String(caught));
  return caught;
}
