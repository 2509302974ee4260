// The rules as projects in a team's own Playwright config (conformanceProjects, conformanceReporter),
// run by Playwright itself: the scope is counted from the tests that ran, as in the `run` command —
// rules over HTTP/2 alone are "HTTP/2 only", never HTTP/1.1 — and `playwright test --list` writes
// no report.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { runBounded, type BoundedRun } from '../support/conformance-run.ts';
import { PLAYWRIGHT, writeTeamConfig } from '../support/team-config.ts';
import { cleanEnv } from '../support/reference-cli.ts';

let work: string;
let config: string;
let reports: string;
let run: BoundedRun;

before(async () => {
  ({ work, reports, config } = writeTeamConfig(
    'team-config',
    `...conformanceProjects({ protocols: ['h2'] })`,
  ));
  run = await runBounded(
    PLAYWRIGHT,
    ['test', '--config', config, '--grep', 'KEY-VALID-SERVED:|TRANSPORT-HTTPS-CERT:'],
    cleanEnv(),
    180_000,
  );
});

after(() => rmSync(work, { recursive: true, force: true }));

function report(): ConformanceReport {
  return JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
}

test('rules run over HTTP/2 alone are counted over HTTP/2: "HTTP/2 only", never HTTP/1.1', () => {
  assert.ok(existsSync(join(reports, 'conformance.json')), `${run.stdout}${run.stderr}`);
  const scope = report().scope;
  assert.deepEqual(scope?.protocolsChecked, ['HTTP/2'], JSON.stringify(scope));
  assert.deepEqual(scope?.protocolsOffered, ['HTTP/1.1', 'HTTP/2']);
  assert.ok(scope?.partial.some((reason) => reason.startsWith('HTTP/1.1 was not checked')));
  assert.match(
    readFileSync(join(reports, 'conformance.md'), 'utf8'),
    /\*\*Verdict: INCOMPLETE · HTTP\/2 only, 2 of \d+ rules\*\*/,
  );
});

test('`playwright test --list` lists the rules and writes no report', async () => {
  const before = readFileSync(join(reports, 'conformance.json'), 'utf8');
  const listed = await runBounded(PLAYWRIGHT, ['test', '--config', config, '--list'], cleanEnv(), 120_000);
  assert.equal(listed.exitCode, 0, listed.stderr);
  assert.match(listed.stdout, /Nothing was run; no report was written\./);
  assert.equal(readFileSync(join(reports, 'conformance.json'), 'utf8'), before);
});
