// The record the set-up project leaves in the run's state directory (judging/knowledge-record.ts)
// gives every rule worker the knowledge the set-up learned, member for member, through JSON — but
// the keyless answer served data, which the learning reports itself and no rule reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Knowledge } from '../../../conformance/judging/knowledge.ts';
import {
  knowledgeOfRecord,
  knowledgeRecord,
  type KnowledgeRecord,
} from '../../../conformance/judging/knowledge-record.ts';
import type { ResponseExchange } from '../../../conformance/requests/exchange.ts';

const values = fc
  .array(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 6 })
  .map((list) => new Set(list));
const tenant = fc.record({ label: fc.string({ maxLength: 20 }), values }, { noNullPrototype: true });
const knowledge: fc.Arbitrary<Knowledge> = fc.record(
  {
    own: tenant,
    other: tenant,
    otherUnanswered: fc.string({ maxLength: 30 }),
    sharedRecords: values,
    ownServed: values,
    otherNextPage: fc.record(
      { url: fc.webUrl(), how: fc.string({ maxLength: 20 }) },
      { noNullPrototype: true },
    ),
    listsCut: fc.array(fc.string({ maxLength: 30 }), { maxLength: 3 }),
  },
  { requiredKeys: [], noNullPrototype: true },
);

/** As the rule workers read it: the set-up project wrote it as JSON (project-state.ts). */
const throughJson = (record: KnowledgeRecord): KnowledgeRecord =>
  JSON.parse(JSON.stringify(record)) as KnowledgeRecord;

test('through JSON, a record gives back the knowledge it was made of', () => {
  fc.assert(
    fc.property(knowledge, (learned) => {
      const read = knowledgeOfRecord(throughJson(knowledgeRecord(learned)));
      assert.deepEqual(read, learned);
    }),
  );
});

test('the keyless answer that was served data is not kept: the learning reported it, once', () => {
  const exchange = { kind: 'response', status: 200, bodyText: '[]' } as unknown as ResponseExchange;
  const learned: Knowledge = {
    own: { label: 'the tenant under test (acme.api.localhost)', values: new Set(['cus_acme_0001']) },
    servedWithoutKey: { exchange, tenant: 'the tenant under test', values: ['cus_acme_0001'] },
  };
  const read = knowledgeOfRecord(throughJson(knowledgeRecord(learned)));
  assert.deepEqual(read, { own: learned.own });
  assert.equal('servedWithoutKey' in read, false);
});
