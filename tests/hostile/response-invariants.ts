// What every answer of the reference server must be, whatever was sent: an answer (no hang, no
// silent close), never 5xx, JSON, a schema-valid error body for every error, no key echoed, and
// customer data only for a request that carries a valid key of that very tenant and environment.
import { isDeepStrictEqual } from 'node:util';
import type { CustomersResponse } from '../../schemas/generated/customers.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import { redactSecrets, type Expectation, type FixtureKnowledge } from './fuzz-model.ts';
import type { RawOutcome, RawResponse } from './raw-tls-connection.ts';
import { jsonOrUndefined } from '../support/json.ts';

const validateError = validatorFor('error.schema.json');
const validateCustomers = validatorFor<CustomersResponse>('customers.schema.json');

/** Text that appears in customer data and in nothing else the server sends. */
const CUSTOMER_MARKERS = ['cus_', '@example.com'];

export function problemsWith(
  outcome: RawOutcome,
  expect: Expectation,
  knowledge: FixtureKnowledge,
  headRequest: boolean,
): string[] {
  if (outcome.kind !== 'response') {
    const what = outcome.kind === 'closed' ? 'closed the connection' : 'did not answer in time';
    return [`the server ${what} without a complete answer; received ${shown(outcome.received, knowledge)}`];
  }
  const { response } = outcome;
  const problems = [...echoedSecrets(response, knowledge), ...formatProblems(response, headRequest)];
  const canHaveData = expect.kind !== 'rejected';
  if (response.status >= 200 && response.status < 300) {
    if (canHaveData) problems.push(...dataProblems(response, expect, knowledge, headRequest));
    else problems.push(`answered ${response.status} to a request that must be rejected`);
  } else {
    if (expect.kind === 'data') problems.push(`answered ${response.status}, expected 200 with data`);
    if (expect.kind === 'rejected') problems.push(...rejectionProblems(response, expect, headRequest));
    if (CUSTOMER_MARKERS.some((marker) => rawText(response).includes(marker))) {
      problems.push(`a ${response.status} answer carries customer data`);
    }
  }
  return problems.map((problem) => `${problem}\n  answer: ${shown(rawText(response), knowledge)}`);
}

function formatProblems(response: RawResponse, headRequest: boolean): string[] {
  const problems: string[] = [];
  if (response.status < 200 || response.status >= 500) problems.push(`status ${response.status}`);
  const contentType = response.headers.get('content-type')?.[0] ?? '';
  if (!contentType.startsWith('application/json')) problems.push(`Content-Type "${contentType}"`);
  if (headRequest) {
    if (response.body.length > 0) problems.push('a body in the answer to HEAD');
    return problems;
  }
  const body = jsonOrUndefined(response.body);
  if (body === undefined) problems.push('a body that is not JSON');
  else if (response.status >= 400 && !validateError(body)) {
    problems.push(
      `an error body not valid against error.schema.json: ${describeSchemaErrors(validateError.errors).join('; ')}`,
    );
  }
  return problems;
}

function rejectionProblems(
  response: RawResponse,
  expect: Extract<Expectation, { kind: 'rejected' }>,
  headRequest: boolean,
): string[] {
  const problems: string[] = [];
  if (response.status < 400) problems.push(`answered ${response.status}, expected a rejection`);
  if (expect.status !== undefined && response.status !== expect.status) {
    problems.push(`answered ${response.status}, expected ${expect.status}`);
  }
  if (expect.codes !== undefined && !headRequest) {
    const code = (jsonOrUndefined(response.body) as { error?: { code?: unknown } } | undefined)?.error?.code;
    if (!expect.codes.includes(String(code))) {
      problems.push(`error code ${JSON.stringify(code)}, expected ${expect.codes.join(' or ')}`);
    }
  }
  return problems;
}

function dataProblems(
  response: RawResponse,
  expect: Exclude<Expectation, { kind: 'rejected' }>,
  knowledge: FixtureKnowledge,
  headRequest: boolean,
): string[] {
  if (response.status !== 200) return [`answered ${response.status}, expected 200`];
  if (headRequest) return [];
  const body = jsonOrUndefined(response.body);
  if (!validateCustomers(body)) {
    return [
      `a 200 body not valid against customers.schema.json: ${describeSchemaErrors(validateCustomers.errors).join('; ')}`,
    ];
  }
  const expected = knowledge.customers(expect.tenant, expect.environment);
  return isDeepStrictEqual(body.data, expected)
    ? []
    : [`customers other than exactly those of ${expect.environment} ${expect.tenant}`];
}

/** Every fixture key, whole or by the first half of its random part, and any `mbk_` text. */
function echoedSecrets(response: RawResponse, knowledge: FixtureKnowledge): string[] {
  const text = rawText(response);
  const problems: string[] = [];
  if (text.includes('mbk_')) problems.push('the answer contains key-like text (mbk_…)');
  for (const key of knowledge.keys.values()) {
    const randomPart = key.secret.slice(key.secret.lastIndexOf('_') + 1);
    if (text.includes(randomPart.slice(0, 16))) problems.push(`the answer echoes (part of) key ${key.id}`);
  }
  return problems;
}

function rawText(response: RawResponse): string {
  return `${response.head}\r\n\r\n${response.body.toString('latin1')}`;
}

function shown(text: string, knowledge: FixtureKnowledge): string {
  const safe = redactSecrets(text, knowledge);
  return JSON.stringify(safe.length > 400 ? `${safe.slice(0, 400)}…` : safe);
}
