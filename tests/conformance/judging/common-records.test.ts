// Leak detection when the leak is in the very answers the suite learns tenants from: a record
// served to both tenants is a leak, not a "shared value" to ignore (found by the faults
// other-tenant-customer-leaked and all-tenants-customers-served of mutation/faults).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { valuesOfCommonRecords } from '../../../conformance/judging/tenant-knowledge.ts';

const ada = { id: 'cus_acme_1', name: 'Ada Lovelace', email: 'ada@acme.example', created_at: '2024-01-15' };
const hank = {
  id: 'cus_globex_1',
  name: 'Hank Scorpio',
  email: 'hank@globex.example',
  created_at: '2024-01-15',
};

test('a whole record in both answers is reported with its values', () => {
  const acme = { data: [ada, hank] };
  const globex = { data: [hank] };
  assert.deepEqual([...valuesOfCommonRecords(acme, globex)].sort(), [
    '2024-01-15',
    'Hank Scorpio',
    'cus_globex_1',
    'hank@globex.example',
  ]);
});

test('member order does not hide a shared record', () => {
  const reordered = Object.fromEntries(Object.entries(hank).reverse());
  assert.equal(valuesOfCommonRecords({ data: [reordered] }, { data: [hank] }).size, 4);
});

test('shared values in different records, or a small shared object, are no leak', () => {
  // Both tenants have a customer created the same day, and the same two-value settings object.
  const settings = { currency: 'EUR-cents', timezone: 'Europe/Berlin' };
  assert.equal(
    valuesOfCommonRecords({ data: [ada], items: [settings] }, { data: [hank], items: [settings] }).size,
    0,
  );
  // An identical object outside any array is metadata, not a record.
  const meta = { api: 'customers-v1', build: 'build-2024-01', region: 'eu-central' };
  assert.equal(valuesOfCommonRecords({ meta, data: [ada] }, { meta, data: [hank] }).size, 0);
});
