// In a team's own Playwright config the first project may be the team's, with retries of its own:
// the report took Playwright's retries from the first project, so rule projects retried 3 times
// beside a team project with none were certified "retries 0" (unlabelled). The scope states the
// retries the rule projects ran under.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { runBounded, type BoundedRun } from '../../support/conformance-run.ts';
import { PLAYWRIGHT, writeTeamConfig } from '../../support/team-config.ts';
import { cleanEnv } from '../../support/reference-cli.ts';
import { verdictWithScope } from '../../../conformance/report/scope.ts';

let work: string;
let reports: string;
let run: BoundedRun;

before(async () => {
  let config: string;
  ({ work, reports, config } = writeTeamConfig(
    'team-retries',
    `
    { name: 'api', testDir: './api', retries: 0 },
    ...conformanceProjects({ protocols: ['h1'] }).map((project) => ({ ...project, retries: 3 })),`,
  ));
  mkdirSync(join(work, 'api'));
  writeFileSync(
    join(work, 'api', 'team.spec.ts'),
    "import { test } from '@playwright/test';\ntest('a team test', () => {});\n",
  );
  run = await runBounded(
    PLAYWRIGHT,
    ['test', '--config', config, '--grep', 'KEY-VALID-SERVED:|a team test'],
    cleanEnv(),
    180_000,
  );
});

after(() => rmSync(work, { recursive: true, force: true }));

test("the retries of the rule projects, not of a team's project listed first, are the scope's", () => {
  const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
  assert.equal(report.scope?.settings?.retries, 3, `${run.stdout}${run.stderr}`);
  assert.equal(report.options?.retries, 3);
  assert.match(verdictWithScope(report), /retries 3$/);
});
