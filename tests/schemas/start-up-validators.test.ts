// The validators generated ahead of time for the server's start (fixtures, key store file) judge
// exactly as the run-time ajv validators of the same schemas do: the same verdict and the same
// error lines, on valid files and on files broken in the ways people break them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { DEFAULT_FIXTURES_FILE } from '../../reference-server/store/fixtures.ts';
import { validateFixtures, validateKeyStore } from '../../schemas/start-up-validators.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';

function judged(validate: ValidateFunction, data: unknown): { valid: boolean; lines: string[] } {
  const valid = validate(data);
  return { valid, lines: describeSchemaErrors(validate.errors) };
}

/** The first case is a valid file; every other one is judged invalid, by both alike. */
function assertSameJudgement(generated: ValidateFunction, runtime: ValidateFunction, cases: unknown[]): void {
  for (const [index, data] of cases.entries()) {
    const verdict = judged(generated, data);
    assert.equal(verdict.valid, index === 0, `case ${index}: ${verdict.lines.join('; ')}`);
    assert.deepEqual(verdict, judged(runtime, data), `case ${index}`);
  }
}

const fixtures = JSON.parse(readFileSync(DEFAULT_FIXTURES_FILE, 'utf8')) as {
  tenants: Record<string, unknown>[];
};

function editedFixtures(edit: (copy: { tenants: Record<string, unknown>[] }) => void): unknown {
  const copy = structuredClone(fixtures);
  edit(copy);
  return copy;
}

test('fixtures: the generated validator judges as the run-time one', () => {
  const key = (copy: { tenants: Record<string, unknown>[] }): Record<string, unknown> =>
    (copy.tenants[0]?.keys as Record<string, unknown>[])[0] ?? {};
  assertSameJudgement(validateFixtures, validatorFor('fixtures.schema.json'), [
    fixtures,
    {},
    [],
    editedFixtures((copy) => (key(copy).secret = 'not a key')),
    editedFixtures((copy) => (key(copy).environment = 'staging')),
    editedFixtures((copy) => (key(copy).unexpected = true)),
    editedFixtures((copy) => delete copy.tenants[0]?.customers),
    editedFixtures((copy) => {
      const customers = copy.tenants[0]?.customers as { production: Record<string, unknown>[] };
      if (customers.production[0]) customers.production[0].email = 'nobody';
    }),
    editedFixtures((copy) => (key(copy).access = 'custom')),
  ]);
});

test('key store file: the generated validator judges as the run-time one', () => {
  const record = {
    id: 'key_0123456789abcdef',
    tenant: 'acme',
    name: 'CI',
    environment: 'production',
    access: 'full_access',
    hmac: `${'A'.repeat(43)}=`,
    last4: 'abcd',
    origin: 'created',
    created_at: '2026-01-01T00:00:00.000Z',
    last_used_at: null,
    revoked_at: null,
  };
  assertSameJudgement(validateKeyStore, validatorFor('key-store.schema.json'), [
    { format: 'reference-key-store/1', keys: [record] },
    { format: 'reference-key-store/2', keys: [] },
    { format: 'reference-key-store/1', keys: [{ ...record, created_at: 'yesterday' }] },
    { format: 'reference-key-store/1', keys: [{ ...record, last_used_at: 5 }] },
    { keys: 'none' },
  ]);
});
