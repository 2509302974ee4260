// The client rule catalog is a published interface like the server's: ids never change meaning,
// every rule cites its source, its document is generated, and a faulty client proves each rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_RULES } from '../../conformance/client-rules.ts';
import { FAULTY_CLIENTS } from '../client-report/faulty-clients.ts';

const SNAPSHOT = join(import.meta.dirname, 'client-rule-ids.snapshot.json');

test('the client rule ids and levels match the published snapshot', () => {
  const current = CLIENT_RULES.map((rule) => ({ id: rule.id, level: rule.level }));
  if (process.env.UPDATE_RULE_SNAPSHOT === '1')
    writeFileSync(SNAPSHOT, `${JSON.stringify(current, null, 2)}\n`);
  const published = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as typeof current;
  for (const rule of published) {
    const now = current.find((candidate) => candidate.id === rule.id);
    assert.ok(now, `Client rule ${rule.id} was published and must not be removed or renamed.`);
    assert.equal(now.level, rule.level, `Client rule ${rule.id} changed level.`);
  }
  assert.deepEqual(
    current,
    published,
    'New client rules: run with UPDATE_RULE_SNAPSHOT=1 and commit the snapshot.',
  );
});

test('client rule ids are unique and well formed, and every rule cites its source', () => {
  const ids = CLIENT_RULES.map((rule) => rule.id);
  assert.equal(new Set(ids).size, ids.length, 'duplicate client rule id');
  for (const rule of CLIENT_RULES) {
    assert.match(rule.id, /^CLIENT(-[A-Z0-9]+)+$/);
    assert.ok(
      rule.source.length > 0 && rule.statement.endsWith('.'),
      `${rule.id} needs a source and a statement`,
    );
  }
});

test('every client rule is caught by some faulty client', () => {
  const caught = new Set(FAULTY_CLIENTS.flatMap((client) => client.caughtBy));
  assert.deepEqual(
    CLIENT_RULES.map((rule) => rule.id).filter((id) => !caught.has(id)),
    [],
    'client rules no faulty client proves',
  );
});

test('docs/client-rules.md is the client catalog as it is (regenerate with npm run docs)', async () => {
  const { formattedClientRulesDoc, CLIENT_RULES_DOC } = await import('../../scripts/generate-docs.ts');
  assert.equal(
    readFileSync(CLIENT_RULES_DOC, 'utf8'),
    await formattedClientRulesDoc(),
    'docs/client-rules.md is out of date: run `npm run docs` and commit it.',
  );
});
