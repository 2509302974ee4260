// Assertions on the reference server's answers, each a rule of docs/decisions.md:
// the error body against schemas/error.schema.json, the headers every error carries, the Bearer
// challenge, and "a rejected request gets no customer data of any tenant".
import assert from 'node:assert/strict';
import type { ErrorBody } from '../../schemas/generated/error.ts';
import type { CustomersResponse } from '../../schemas/generated/customers.ts';
import type { Fixtures } from '../../schemas/generated/fixtures.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import { allSecrets, type Reply } from './reference-client.ts';
import { jsonOf } from './json.ts';

const validateError = validatorFor<ErrorBody>('error.schema.json');
const validateCustomers = validatorFor<CustomersResponse>('customers.schema.json');

/** What `WWW-Authenticate` must be: absent, a bare realm, or a realm with an RFC 6750 error. */
export type Challenge = 'none' | 'realm' | 'invalid_token' | 'insufficient_scope';

export interface ExpectedError {
  status: number;
  code: string;
  challenge?: Challenge;
  transport?: 'https' | 'http';
}

/**
 * A complete check of an error answer: status, JSON content type, `no-store`, the schema-valid
 * body with `code`, the challenge, HSTS on HTTPS only, no redirect, no key echoed, no customer data.
 */
export function assertErrorReply(reply: Reply, expected: ExpectedError, fixtures: Fixtures): ErrorBody {
  const context = `${reply.status} ${reply.body}`;
  assert.equal(reply.status, expected.status, context);
  assert.match(reply.headers['content-type'] ?? '', /^application\/json(;|$)/, context);
  assert.equal(reply.headers['cache-control'], 'no-store', context);
  assert.equal(reply.headers.location, undefined, 'an error never redirects');
  if ((expected.transport ?? 'https') === 'https') {
    assert.match(reply.headers['strict-transport-security'] ?? '', /max-age=\d+/, 'HSTS on HTTPS');
  } else {
    assert.equal(reply.headers['strict-transport-security'], undefined, 'no HSTS on plain HTTP');
  }
  assertChallenge(reply, expected.challenge ?? 'none');

  const body = jsonOf(reply.body);
  assert.ok(
    validateError(body),
    `error body ${reply.body}: ${describeSchemaErrors(validateError.errors).join('; ')}`,
  );
  assert.equal(body.error.code, expected.code, context);
  assertNoSecret(reply, fixtures);
  assertNoCustomerData(reply, fixtures);
  return body;
}

export function assertChallenge(reply: Reply, challenge: Challenge): void {
  const values = headerValues(reply, 'www-authenticate');
  if (challenge === 'none') {
    assert.deepEqual(values, [], 'no WWW-Authenticate on this error');
    return;
  }
  assert.equal(values.length, 1, `one WWW-Authenticate header, got ${JSON.stringify(values)}`);
  const value = values[0] ?? '';
  assert.match(value, /^Bearer realm="[^"]+"/, value);
  if (challenge === 'realm') assert.doesNotMatch(value, /error=/, value);
  else assert.match(value, new RegExp(`, error="${challenge}"$`), value);
}

/** The customers of a success answer, after validating it against the customers schema. */
export function assertCustomersReply(reply: Reply): CustomersResponse {
  assert.equal(reply.status, 200, reply.body);
  assert.match(reply.headers['content-type'] ?? '', /^application\/json(;|$)/);
  assert.equal(reply.headers['cache-control'], 'no-store');
  assert.match(reply.headers['strict-transport-security'] ?? '', /max-age=\d+/);
  return assertCustomersBody(reply.body);
}

/** The body of a success answer, validated against schemas/customers.schema.json. */
export function assertCustomersBody(text: string): CustomersResponse {
  const body = jsonOf(text);
  assert.ok(
    validateCustomers(body),
    `customers body ${text}: ${describeSchemaErrors(validateCustomers.errors).join('; ')}`,
  );
  return body;
}

/** Every value that identifies a customer of any tenant: ids, names and e-mail addresses. */
export function customerMarkers(fixtures: Fixtures): string[] {
  return fixtures.tenants.flatMap((tenant) =>
    [...tenant.customers.production, ...tenant.customers.sandbox].flatMap((customer) => [
      customer.id,
      customer.name,
      customer.email,
    ]),
  );
}

export function assertNoCustomerData(reply: Reply, fixtures: Fixtures): void {
  const text = `${reply.rawHeaders.join('\n')}\n${reply.body}`;
  for (const marker of customerMarkers(fixtures)) {
    assert.ok(!text.includes(marker), `a rejected request received customer data (${marker})`);
  }
}

export function assertNoSecret(reply: Reply, fixtures: Fixtures): void {
  const text = `${reply.rawHeaders.join('\n')}\n${reply.body}`;
  for (const secret of allSecrets(fixtures)) {
    assert.ok(!text.includes(secret), 'the answer echoes an API key');
  }
}

/** Every field line of a header, as received (duplicates kept). */
export function headerValues(reply: Reply, name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < reply.rawHeaders.length; i += 2) {
    if (reply.rawHeaders[i]?.toLowerCase() === name) values.push(reply.rawHeaders[i + 1] ?? '');
  }
  return values;
}

/** Status, headers (but `Date`, which differs by the second) and body, to compare two answers. */
export function comparable(reply: Reply): { status: number; headers: string[][]; body: string } {
  const headers: string[][] = [];
  for (let i = 0; i + 1 < reply.rawHeaders.length; i += 2) {
    const name = (reply.rawHeaders[i] ?? '').toLowerCase();
    if (name !== 'date') headers.push([name, reply.rawHeaders[i + 1] ?? '']);
  }
  return { status: reply.status, headers, body: reply.body };
}
