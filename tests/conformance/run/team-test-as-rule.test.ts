// Only the kit's own rule projects give a rule's outcome: a team's own test annotated as a rule
// (`rule: TENANT-FORWARDED-HOST-IGNORED`, with its level) is not that rule's result, whatever its
// status. And a result the evidence does not show is not a result: a rule's pass with no exchange
// of its own in the record is an ERROR (which judges a merge, whose blobs keep no project). The
// control: the kit's own rule in the same run passes with its exchanges.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestResult } from '@playwright/test/reporter';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { shownByExchanges } from '../../../conformance/run/kit-rule-results.ts';
import { ANNOTATION } from '../../../conformance/run/annotations.ts';
import { runBounded, type BoundedRun } from '../../support/conformance-run.ts';
import { PLAYWRIGHT, writeTeamConfig, type TeamConfig } from '../../support/team-config.ts';
import { cleanEnv } from '../../support/reference-cli.ts';

let team: TeamConfig;
let run: BoundedRun;

before(async () => {
  team = writeTeamConfig(
    'team-test-as-rule',
    `...conformanceProjects({ protocols: ['h1'] }), { name: 'team api tests', testDir: './team-tests' }`,
  );
  mkdirSync(join(team.work, 'team-tests'));
  writeFileSync(
    join(team.work, 'team-tests', 'own.spec.ts'),
    `import { test } from '@playwright/test';
test('team check: forwarded host', {
  annotation: [
    { type: 'rule', description: 'TENANT-FORWARDED-HOST-IGNORED' },
    { type: 'level', description: 'MUST' },
  ],
}, () => {});
`,
  );
  run = await runBounded(
    PLAYWRIGHT,
    ['test', '--config', team.config, '--grep', 'KEY-VALID-SERVED:|team check'],
    cleanEnv(),
    180_000,
  );
});

after(() => rmSync(team.work, { recursive: true, force: true }));

function report(): ConformanceReport {
  return JSON.parse(readFileSync(join(team.reports, 'conformance.json'), 'utf8')) as ConformanceReport;
}

test("a team's own test annotated as a rule gives that rule no outcome", () => {
  const rules = new Map(report().rules.map((rule) => [rule.id, rule.verdict]));
  assert.notEqual(rules.get('TENANT-FORWARDED-HOST-IGNORED'), 'pass', run.stdout + run.stderr);
  assert.equal(rules.get('TENANT-FORWARDED-HOST-IGNORED'), 'not-evaluated');
  assert.doesNotMatch(run.stdout, /pass\s+MUST TENANT-FORWARDED-HOST-IGNORED/);
});

test("the control: the kit's own rule in the same run passes, its exchanges in the record", () => {
  const rules = new Map(report().rules.map((rule) => [rule.id, rule.verdict]));
  assert.equal(rules.get('KEY-VALID-SERVED'), 'pass', run.stdout + run.stderr);
  const har = JSON.parse(readFileSync(join(team.reports, 'exchanges.har'), 'utf8')) as {
    log: { entries: { _rule?: string }[] };
  };
  assert.ok(har.log.entries.some((entry) => entry._rule === 'KEY-VALID-SERVED'));
  assert.equal(report().scope?.rulesSelected, 1);
});

test('a pass with no exchange of its rule is an ERROR; with one, or for a rule of the handshake, a pass', () => {
  const result = (attachments: TestResult['attachments']): TestResult => ({ attachments }) as TestResult;
  const exchanges = [
    { name: ANNOTATION.exchanges, contentType: 'application/json', body: Buffer.from('[{}]') },
  ];
  const passed = { status: 'passed' };
  assert.equal(shownByExchanges('KEY-VALID-SERVED', passed, result([])).status, 'failed');
  assert.match(shownByExchanges('KEY-VALID-SERVED', passed, result([])).error ?? '', /no exchange of it/);
  assert.equal(shownByExchanges('KEY-VALID-SERVED', passed, result(exchanges)), passed);
  assert.equal(shownByExchanges('TRANSPORT-HTTPS-CERT', passed, result([])), passed);
  const skipped = { status: 'skipped', notEvaluated: 'not evaluated: …' };
  assert.equal(shownByExchanges('KEY-VALID-SERVED', skipped, result([])), skipped);
});
