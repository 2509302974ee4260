// No artifact of a run holds a key, whatever the options: Playwright's trace records every request
// of its APIRequestContext, headers included, so the kit's projects never record one. The `run`
// command refuses `--trace` before or after `--` (undeclared-options.test.ts); a team's own config
// cannot be refused Playwright's options, so there the kit's tests and its set-up keep the trace
// off whatever `--trace` or `use.trace` says. Every file the run wrote is searched for every key,
// zips (traces, blobs) and the HTML report's embedded data included.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import { runBounded, type BoundedRun } from '../../support/conformance-run.ts';
import { PLAYWRIGHT, writeTeamConfig, type TeamConfig } from '../../support/team-config.ts';
import { cleanEnv } from '../../support/reference-cli.ts';
import { scanDirectory, scanText, secretForms } from '../../support/artifact-scan.ts';

let team: TeamConfig;
let run: BoundedRun;
const keys = fixtureKeyEnvironment();

before(async () => {
  // A team's config that asks for a trace of everything, in `use` too.
  team = writeTeamConfig(
    'no-trace',
    `...conformanceProjects({ protocols: ['h1'] }).map((project) => ({ ...project, use: { ...project.use, trace: 'on' as const } }))`,
  );
  run = await runBounded(
    PLAYWRIGHT,
    ['test', '--config', team.config, '--grep', 'KEY-VALID-SERVED:|AUTH-MISSING-HEADER:', '--trace', 'on'],
    cleanEnv(),
    180_000,
  );
});

after(() => rmSync(team.work, { recursive: true, force: true }));

test('the rules ran (so that there was something to trace)', () => {
  assert.ok(existsSync(join(team.reports, 'conformance.json')), `${run.stdout}${run.stderr}`);
  assert.match(run.stdout + run.stderr, /KEY-VALID-SERVED/);
});

test('no file the run wrote, and nothing it printed, holds any key, under --trace on and use.trace', () => {
  const forms = secretForms(keys);
  const { findings, filesScanned } = scanDirectory(team.work, forms);
  assert.ok(filesScanned >= 5, `scanned ${filesScanned} files`);
  findings.push(...scanText('stdout', run.stdout, forms), ...scanText('stderr', run.stderr, forms));
  assert.deepEqual(findings, []);
});

test('the scan finds the key that served (so that a clean result means something)', () => {
  const forms = secretForms(keys);
  const served = keys.REFERENCE_KEY_ACME_PROD_FULL ?? '';
  assert.ok(served.length > 10);
  assert.deepEqual(
    scanText('a trace line', `{"headers":[{"name":"authorization","value":"Bearer ${served}"}]}`, forms).map(
      (finding) => finding.secretName,
    ),
    ['REFERENCE_KEY_ACME_PROD_FULL', 'REFERENCE_KEY_ACME_PROD_FULL (in Bearer)'],
  );
});
