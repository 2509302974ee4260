// Hand-made recorded exchanges for the run's checker's unit tests (run-checker*.test.ts): the
// declared hosts and keys of a run (as their variables), each tenant's values, and a recorded
// exchange of any URL, request fields, protocol and answer.
import { runFactsOf } from '../../../conformance/judging/run-facts.ts';
import type { RecordedExchange } from '../../../conformance/requests/exchange-record.ts';
import type { TenantValues } from '../../../conformance/judging/tenant-knowledge.ts';

export const ACME = 'https://acme.api.localhost:8443/v1';
export const GLOBEX = 'https://globex.api.localhost:8443/v1';
export const SANDBOX = 'https://acme.sandbox.api.localhost:8443/v1';
export const own: TenantValues = { label: 'acme', values: new Set(['cus_acme_000001', 'Acme Anvils Ltd']) };
export const other: TenantValues = { label: 'globex', values: new Set(['cus_globex_000001', 'Globex Corp']) };
export const FACTS = runFactsOf(
  {
    baseUrl: ACME,
    otherTenantBaseUrl: GLOBEX,
    sandboxBaseUrl: SANDBOX,
    credentialVariables: {
      fullAccess: 'ACME_FULL',
      readOnly: 'ACME_RO',
      noCustomersPermission: 'ACME_NONE',
      revoked: 'ACME_REVOKED',
      sandbox: 'ACME_SANDBOX',
      otherTenant: 'GLOBEX_FULL',
    },
  },
  { own, other },
);
export const ACME_LIST = '{"customers":[{"id":"cus_acme_000001","name":"Acme Anvils Ltd"}]}';
export const GLOBEX_LIST = '{"customers":[{"id":"cus_globex_000001","name":"Globex Corp"}]}';
export const ERROR = '{"error":{"code":"invalid_api_key","message":"The provided API key is invalid."}}';

export interface Shape {
  url?: string;
  headers?: [string, string][];
  h2?: boolean;
  status?: number;
  body?: string;
  responseHeaders?: [string, string][];
}

export function recorded({
  url = `${ACME}/customers`,
  headers = [],
  h2,
  status = 200,
  body = ACME_LIST,
  responseHeaders = [],
}: Shape): RecordedExchange {
  return {
    id: `x-${Math.random()}`,
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    request: {
      method: 'GET',
      url,
      headers: fields([['Host', new URL(url).host], ...headers]),
      ...(h2 ? { httpVersion: 'HTTP/2' as const } : {}),
    },
    response: {
      status,
      headers: fields([['content-type', 'application/json'], ...responseHeaders]),
      body,
    },
  };
}

export function fields(pairs: readonly [string, string][]): { name: string; value: string }[] {
  return pairs.map(([name, value]) => ({ name, value }));
}

export const key = (variable: string): [string, string] => ['Authorization', `Bearer $${variable}`];
