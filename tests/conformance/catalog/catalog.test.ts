// The rule catalog is a published interface: ids never change meaning, and every rule has a spec.
// Each rule is declared once (specs/rules/), and a declaration that is incomplete fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULE_DECLARATIONS, RULES } from '../../../conformance/catalog/rules.ts';
import type { RuleDeclaration } from '../../../conformance/run/rule-declaration.ts';
import { REPO_ROOT } from '../../support/conformance-run.ts';
import { assertPublishedRules, assertWellFormedRules } from '../../support/rule-snapshot.ts';
import { declarationProblems, rulesNoFaultCatches } from '../../support/rule-declarations.ts';
import { loadedBy } from '../../support/layers.ts';

const SNAPSHOT = join(import.meta.dirname, 'rule-ids.snapshot.json');
const ID_PATTERN = /^[A-Z]+(-[A-Z0-9]+)+$/;

test('the rule ids and levels match the published snapshot (an id never changes meaning)', () => {
  assertPublishedRules(RULES, SNAPSHOT);
});

test('rule ids are unique and well formed, and every rule cites its source', () => {
  assertWellFormedRules(RULES, ID_PATTERN);
});

test('every rule is declared whole: id, level, source, statement, what it reads and its check', () => {
  assert.deepEqual(declarationProblems(RULE_DECLARATIONS, ID_PATTERN), []);
});

test('the catalog is the declarations, their metadata alone, in the same order', () => {
  assert.deepEqual(
    RULES.map((rule) => rule.id),
    RULE_DECLARATIONS.map((rule) => rule.id),
  );
  for (const rule of RULES)
    assert.deepEqual(
      Object.keys(rule).filter((key) => key === 'check' || key === 'reads'),
      [],
    );
});

test('reading the catalog loads no Playwright, no run and no schema validator, though it holds the checks', () => {
  // The package's entry point and every report read the catalog (bench/import-cost.ts measures
  // it): a check's heavy import is loaded when the check runs (`await import(…)`).
  const { files, packages } = loadedBy(join(REPO_ROOT, 'conformance', 'catalog', 'rules.ts'));
  assert.ok(files.some((file) => file.endsWith(join('specs', 'rules', 'keys.ts'))));
  assert.deepEqual(
    packages.filter((name) => /^(@playwright\/|playwright|ajv)/.test(name)),
    [],
  );
  const heavy = ['conformance/run/test.ts', 'schemas/validators.ts', 'conformance/deployment/preflight.ts'];
  assert.deepEqual(
    files.filter((file) => heavy.some((path) => file.endsWith(join(...path.split('/'))))),
    [],
  );
});

test('an incomplete declaration is named, with what it lacks', () => {
  const whole = RULE_DECLARATIONS[0];
  const broken = (
    id: string,
    change: Partial<Record<keyof RuleDeclaration, unknown>> = {},
  ): RuleDeclaration => ({ ...whole, id, ...change }) as RuleDeclaration;
  const problems = declarationProblems(
    [
      broken('lower-case'),
      broken('NO-SOURCE', { source: ' ' }),
      broken('NO-STATEMENT', { statement: '' }),
      broken('NO-LEVEL', { level: 'SHOULD' }),
      broken('NO-READING', { reads: 'everything' }),
      broken('NO-CHECK', { check: undefined }),
      broken('NO-REASON', { notApplicableOnReference: '' }),
      broken('TWICE-DECLARED'),
      broken('TWICE-DECLARED'),
    ],
    ID_PATTERN,
  );
  assert.deepEqual(problems, [
    `lower-case: the id does not match ${String(ID_PATTERN)}`,
    'NO-SOURCE: no source',
    'NO-STATEMENT: no statement (a full sentence)',
    'NO-LEVEL: no level (MUST, HTTP, ADVISORY)',
    'NO-READING: no reading (reads: tls, plain-http, host-check, authenticated-path, refusal, any-answer, tenant-comparison)',
    'NO-CHECK: no check',
    'NO-REASON: notApplicableOnReference without the reason',
    'TWICE-DECLARED: the id is declared twice',
  ]);
});

test('a rule no fault catches is named, unless the reference leaves it not applicable (with why)', () => {
  const [first, second] = RULE_DECLARATIONS;
  assert.ok(first && second);
  assert.deepEqual(rulesNoFaultCatches([first, second], [{ catches: [first.id] }]), [
    `${second.level} ${second.id}`,
  ]);
  const notApplicable = { ...second, notApplicableOnReference: 'offers nothing to check' };
  assert.deepEqual(rulesNoFaultCatches([first, notApplicable], [{ catches: [first.id] }]), []);
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
