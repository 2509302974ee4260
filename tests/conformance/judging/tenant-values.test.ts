// Which values tell whose data an answer holds (conformance/judging/tenant-knowledge.ts), and how
// a known value is found in an answer: the bounds of "distinctive" (six characters, not a plain
// word, a number from 100 000), records told apart by content whatever their member order, and a
// value found raw or as JSON escapes it. fast-check where the input is a space.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  distinctiveValues,
  leakedValues,
  valuesOfCommonRecords,
  withoutShared,
} from '../../../conformance/judging/tenant-knowledge.ts';

test('distinctive strings: six characters or more, and not a plain lower-case word', () => {
  assert.deepEqual(
    [...distinctiveValues(['abcde1', 'abcd1', 'active', 'customer_list', 'Active', 'ab-cde', 'x'.repeat(5)])],
    ['abcde1', 'Active', 'ab-cde'],
  );
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), (text) => {
      const kept = distinctiveValues({ text }).has(text);
      assert.equal(kept, text.length >= 6 && !/^[a-z_]+$/.test(text));
    }),
  );
});

test('distinctive numbers: from 100 000 either way; booleans and null never', () => {
  assert.deepEqual(
    [...distinctiveValues([99_999, 100_000, -100_000, -99_999, 1_234_567.5, true, null, false])],
    ['100000', '-100000', '1234567.5'],
  );
  fc.assert(
    fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), (number) => {
      assert.equal(distinctiveValues({ number }).has(String(number)), Math.abs(number) >= 100_000);
    }),
  );
});

test('distinctive values are found at any depth, in arrays and objects alike', () => {
  const document = { a: [{ b: { c: ['Ada Lovelace', { d: 'ada@acme.example' }] } }], e: 'cus_acme_1' };
  assert.deepEqual([...distinctiveValues(document)].sort(), [
    'Ada Lovelace',
    'ada@acme.example',
    'cus_acme_1',
  ]);
  assert.equal(distinctiveValues('Ada Lovelace').size, 1);
  assert.equal(distinctiveValues(undefined).size, 0);
});

test('withoutShared keeps exactly the values the other set lacks', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.string()), fc.uniqueArray(fc.string()), (own, other) => {
      const kept = withoutShared(new Set(own), new Set(other));
      assert.deepEqual(
        [...kept],
        own.filter((value) => !other.includes(value)),
      );
    }),
  );
});

const hank = { id: 'cus_globex_1', name: 'Hank Scorpio', email: 'hank@globex.example' };

test('a common record counts in an array only, with three distinctive values or more', () => {
  assert.deepEqual([...valuesOfCommonRecords([hank], [hank])].sort(), [
    'Hank Scorpio',
    'cus_globex_1',
    'hank@globex.example',
  ]);
  // Outside an array: metadata, not a record.
  assert.equal(valuesOfCommonRecords({ only: hank }, { only: hank }).size, 0);
  // Two distinctive values are too few to tell a record from a shared default.
  const small = { id: 'cus_globex_1', name: 'Hank Scorpio', status: 'active' };
  assert.equal(valuesOfCommonRecords([small], [small]).size, 0);
  // In one document only: nothing.
  assert.equal(valuesOfCommonRecords([hank], [{ ...hank, id: 'cus_globex_2' }]).size, 0);
  // Nested in a record, an array's record counts as well.
  const nested = { data: [{ owner: 'x', notes: [hank] }] };
  assert.equal(valuesOfCommonRecords(nested, { other: [hank] }).size, 3);
});

test('a record is the same whatever the order of its members, at every depth', () => {
  const record = { ...hank, address: { city: 'Springfield', street: 'Cypress Creek 1', zip: '123456' } };
  const reordered = {
    address: { zip: '123456', street: 'Cypress Creek 1', city: 'Springfield' },
    email: hank.email,
    name: hank.name,
    id: hank.id,
  };
  assert.equal(valuesOfCommonRecords([record], [reordered]).size, 6);
  // Arrays keep their order: another order is another record.
  const listed = { ...hank, tags: ['alpha-1', 'beta-22'] };
  assert.equal(valuesOfCommonRecords([listed], [{ ...listed, tags: ['beta-22', 'alpha-1'] }]).size, 0);
});

test('leakedValues: a value found as it is or as JSON escapes it, at most `limit`, in the order known', () => {
  const tenant = { label: 't', values: new Set(['Zoë "Z" Doe', 'line\nbreak', 'cus_1234', 'plain-value']) };
  assert.deepEqual(leakedValues(JSON.stringify({ a: 'Zoë "Z" Doe' }), tenant), ['Zoë "Z" Doe']);
  assert.deepEqual(leakedValues(JSON.stringify({ a: 'line\nbreak' }), tenant), ['line\nbreak']);
  assert.deepEqual(leakedValues('raw Zoë "Z" Doe', tenant), ['Zoë "Z" Doe']);
  const all = 'Zoë "Z" Doe line\nbreak cus_1234 plain-value';
  assert.deepEqual(leakedValues(all, tenant), ['Zoë "Z" Doe', 'line\nbreak', 'cus_1234']);
  assert.deepEqual(leakedValues(all, tenant, 1), ['Zoë "Z" Doe']);
  assert.equal(leakedValues(all, tenant, Infinity).length, 4);
  assert.deepEqual(leakedValues('nothing here', tenant), []);
});
