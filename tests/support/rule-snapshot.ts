// A rule catalog's published ids and levels, kept in a snapshot file: an id may not disappear or
// change level, and new rules are appended (UPDATE_RULE_SNAPSHOT=1 rewrites the file).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';

export function assertPublishedRules(
  rules: readonly { id: string; level: string }[],
  snapshotFile: string,
): void {
  const current = rules.map((rule) => ({ id: rule.id, level: rule.level }));
  if (process.env.UPDATE_RULE_SNAPSHOT === '1')
    writeFileSync(snapshotFile, `${JSON.stringify(current, null, 2)}\n`);
  const published = JSON.parse(readFileSync(snapshotFile, 'utf8')) as typeof current;
  for (const rule of published) {
    const now = current.find((candidate) => candidate.id === rule.id);
    assert.ok(now, `Rule ${rule.id} was published and must not be removed or renamed.`);
    assert.equal(now.level, rule.level, `Rule ${rule.id} changed level.`);
  }
  assert.deepEqual(
    current,
    published,
    'The catalog has rules the snapshot lacks: run with UPDATE_RULE_SNAPSHOT=1 and commit it.',
  );
}

/** Ids unique and well formed, each rule with a source and a full statement. */
export function assertWellFormedRules(
  rules: readonly { id: string; source: string; statement: string }[],
  idPattern: RegExp,
): void {
  const ids = rules.map((rule) => rule.id);
  assert.equal(new Set(ids).size, ids.length, 'duplicate rule id');
  for (const rule of rules) {
    assert.match(rule.id, idPattern);
    assert.ok(
      rule.source.length > 0 && rule.statement.endsWith('.'),
      `${rule.id} needs a source and a full statement`,
    );
  }
}
