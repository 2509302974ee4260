// The client rule catalog is a published interface like the server's: ids never change meaning,
// every rule cites its source, its document is generated, and a faulty client proves each rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_RULES } from '../../../conformance/catalog/client-rules.ts';
import { FAULTY_CLIENTS } from '../client-report/faulty-clients.ts';
import { NEXT_STEP_CLIENTS } from '../client-report/next-step-clients.ts';
import { assertPublishedRules, assertWellFormedRules } from '../../support/rule-snapshot.ts';

const SNAPSHOT = join(import.meta.dirname, 'client-rule-ids.snapshot.json');

test('the client rule ids and levels match the published snapshot', () => {
  assertPublishedRules(CLIENT_RULES, SNAPSHOT);
});

test('client rule ids are unique and well formed, and every rule cites its source', () => {
  assertWellFormedRules(CLIENT_RULES, /^CLIENT(-[A-Z0-9]+)+$/);
});

test('every client rule is caught by some faulty client', () => {
  const caught = new Set([...FAULTY_CLIENTS, ...NEXT_STEP_CLIENTS].flatMap((client) => client.caughtBy));
  assert.deepEqual(
    CLIENT_RULES.map((rule) => rule.id).filter((id) => !caught.has(id)),
    [],
    'client rules no faulty client proves',
  );
});

test('docs/client-rules.md is the client catalog as it is (regenerate with npm run docs)', async () => {
  const { formattedClientRulesDoc, CLIENT_RULES_DOC } = await import('../../../scripts/generate-docs.ts');
  assert.equal(
    readFileSync(CLIENT_RULES_DOC, 'utf8'),
    await formattedClientRulesDoc(),
    'docs/client-rules.md is out of date: run `npm run docs` and commit it.',
  );
});
