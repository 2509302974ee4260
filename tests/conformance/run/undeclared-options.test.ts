// Nothing reaches Playwright that the kit has not declared: an option written after `--`
// (`--project=`, `--no-deps`, `--trace=on`) is refused by name, as one written before it is. And a
// run whose set-up project did not run — `--no-deps` in a team's config, where the kit cannot
// refuse Playwright's own options — recorded no certificate of its https:// base URL: it is not
// complete (INCOMPLETE under strict), and `verify` says why. The control is the same command
// without the option, or the same team config run whole.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { splitOptions } from '../../../conformance/run/run-options.ts';
import { scopeLabel } from '../../../conformance/report/scope.ts';
import { EXIT_CODE } from '../../../conformance/report/verdict.ts';
import { runBounded, type BoundedRun } from '../../support/conformance-run.ts';
import { PLAYWRIGHT, writeTeamConfig } from '../../support/team-config.ts';
import { cleanEnv, runMain } from '../../support/reference-cli.ts';
import { scratchDirectory } from '../../support/scratch.ts';
import { bundleOf, report as builtReport, verifyCli } from '../../support/forger.ts';

const refusal = (argv: string[]): string => {
  try {
    splitOptions(argv);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

test('an option after `--` that the kit has not declared is refused by name', () => {
  for (const option of [
    '--no-deps',
    '--project=',
    '--project=set-up',
    '--trace=on',
    '--trace',
    '-x',
    '--ui',
  ]) {
    const message = refusal(['--grep', '@KEY-VALID-SERVED', '--', option]);
    assert.notEqual(message, 'accepted', option);
    assert.ok(message.startsWith(`${option}: not an option of run`), message);
  }
  assert.match(refusal(['--', '--project=', '--no-deps']), /^--project=, --no-deps: not an option of run/);
  // The control: declared options and file names pass after `--` as before it.
  assert.deepEqual(splitOptions(['--', '--grep=@KEY-VALID-SERVED', 'specs/keys.spec.ts']).passThrough, [
    '--grep=@KEY-VALID-SERVED',
    'specs/keys.spec.ts',
  ]);
  assert.deepEqual(splitOptions(['--grep', 'x', '--', 'specs/keys.spec.ts']).passThrough, [
    '--grep',
    'x',
    'specs/keys.spec.ts',
  ]);
});

test('the refusal of an unknown option no longer tells the user to put it after `--`', () => {
  const message = refusal(['--trace=on']);
  assert.match(message, /^Unknown option '--trace'\./);
  assert.doesNotMatch(message, /after '--'|-- "/);
});

test('`run … -- --project= --no-deps` is a usage error (exit 2) naming both, before anything starts', async () => {
  const work = scratchDirectory('undeclared-options-');
  const target = join(work, 't.json');
  writeFileSync(target, JSON.stringify({ name: 'acme', baseUrl: 'https://acme.api.example.com/v1' }));
  const run = await runMain([
    'run',
    '--target',
    target,
    '--profile',
    'strict',
    '--protocols',
    'h1',
    '--reports',
    join(work, 'reports'),
    '--',
    '--project=',
    '--no-deps',
  ]);
  assert.equal(run.code, EXIT_CODE.usage, run.stderr);
  assert.match(run.stderr, /--project=, --no-deps: not an option of run/);
  // The control: the same command line without them goes past the options (to the target file's
  // keys, which this environment does not set, or further) — not a refusal of its options.
  const control = await runMain([
    'run',
    '--target',
    target,
    '--preflight-only',
    '--reports',
    join(work, 'r2'),
  ]);
  assert.doesNotMatch(control.stderr, /not an option of run/);
});

describe('a team config run with --no-deps (no set-up project, no preflight)', () => {
  let work: string;
  let reports: string;
  let config: string;
  let noDeps: BoundedRun;
  let whole: BoundedRun;
  const read = (): ConformanceReport =>
    JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;

  before(async () => {
    ({ work, reports, config } = writeTeamConfig(
      'no-deps',
      `...conformanceProjects({ protocols: ['h1'], profile: 'strict' })`,
    ));
    noDeps = await runBounded(
      PLAYWRIGHT,
      ['test', '--config', config, '--grep', 'KEY-VALID-SERVED:', '--no-deps'],
      cleanEnv(),
      180_000,
    );
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('records no certificate, and its scope says so: not complete', () => {
    const report = read();
    assert.equal(report.tls, undefined, `${noDeps.stdout}${noDeps.stderr}`);
    assert.ok(
      report.scope?.partial.some((reason) => reason.startsWith('No certificate of the base URL')),
      JSON.stringify(report.scope?.partial),
    );
    assert.match(scopeLabel(report) ?? '', /no certificate/);
    assert.notEqual(report.verdict, 'CONFORMANT');
  });

  test('the control: the same config run whole records the certificate and has no such reason', async () => {
    whole = await runBounded(
      PLAYWRIGHT,
      ['test', '--config', config, '--grep', 'KEY-VALID-SERVED:'],
      cleanEnv(),
      180_000,
    );
    const report = read();
    assert.ok(
      (report.tls ?? []).some((tls) => tls.field === 'baseUrl'),
      `${whole.stdout}${whole.stderr}`,
    );
    assert.ok(!report.scope?.partial.some((reason) => reason.startsWith('No certificate')));
  });
});

test('verify refuses a report of an https:// target that claims a complete run with no certificate', async (t) => {
  const report = builtReport({ profile: 'strict' });
  const forged: ConformanceReport = { ...report };
  delete forged.tls;
  const refused = await verifyCli(t, [bundleOf(forged)]);
  assert.equal(refused.code, 1, refused.out + refused.err);
  assert.match(
    refused.out + refused.err,
    /No certificate of the base URL \(https:\/\/api\.acme\.example\/v1\) was recorded/,
  );
  // The control: the same report with its certificate is intact (exit 4: signed by a key not given).
  const honest = await verifyCli(t, [bundleOf(report)]);
  assert.equal(honest.code, 4, honest.out + honest.err);
});
