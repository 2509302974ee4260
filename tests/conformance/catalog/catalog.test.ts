// The rule catalog is a published interface: ids never change meaning, and every rule has a spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { REPO_ROOT } from '../../support/conformance-run.ts';
import { assertPublishedRules, assertWellFormedRules } from '../../support/rule-snapshot.ts';

const SNAPSHOT = join(import.meta.dirname, 'rule-ids.snapshot.json');

test('the rule ids and levels match the published snapshot (an id never changes meaning)', () => {
  assertPublishedRules(RULES, SNAPSHOT);
});

test('rule ids are unique and well formed, and every rule cites its source', () => {
  assertWellFormedRules(RULES, /^[A-Z]+(-[A-Z0-9]+)+$/);
});

test('every spec is tagged with exactly one known rule, and every rule has at least one spec', () => {
  const listing = execFileSync(
    join(REPO_ROOT, 'node_modules', '.bin', 'playwright'),
    ['test', '--list', '--reporter=json'],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      // Listing needs no server; the config still loads the embedded target.
      env: { ...process.env, CONFORMANCE_TARGET: '' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  interface Suite {
    suites?: Suite[];
    specs?: { title: string; tags: string[]; file: string }[];
  }
  const specs: { title: string; tags: string[] }[] = [];
  const visit = (suite: Suite): void => {
    suite.suites?.forEach(visit);
    // The set-up and teardown projects' tests are the run's own, not rules.
    specs.push(...(suite.specs ?? []).filter((spec) => !/project-(setup|teardown)\.[jt]s$/.test(spec.file)));
  };
  (JSON.parse(listing) as { suites: Suite[] }).suites.forEach(visit);

  const known = new Set<string>(RULES.map((rule) => rule.id));
  const covered = new Set<string>();
  for (const spec of specs) {
    const ruleTags = spec.tags.map((tag) => tag.replace(/^@/, '')).filter((tag) => known.has(tag));
    assert.equal(
      ruleTags.length,
      1,
      `spec "${spec.title}" must carry exactly one rule tag, has [${spec.tags.join(', ')}]`,
    );
    covered.add(ruleTags[0] ?? '');
  }
  const uncovered = [...known].filter((id) => !covered.has(id));
  assert.deepEqual(uncovered, [], `rules without a spec: ${uncovered.join(', ')}`);
});

test('docs/rules.md is the catalog as it is (regenerate with npm run docs)', async () => {
  const { formattedRulesDoc, RULES_DOC } = await import('../../../scripts/generate-docs.ts');
  assert.equal(
    readFileSync(RULES_DOC, 'utf8'),
    await formattedRulesDoc(),
    'docs/rules.md is out of date: run `npm run docs` and commit it.',
  );
});
