// One report is one target's. A team's config with two sets of conformanceProjects — the
// deployment with a failing rule left out (grepInvert), and a clean copy running that rule alone —
// gave one report under the first one's name, every rule passed, signed and VERIFIED as strict
// CONFORMANT. Rule projects of different targets (another file, or the same one under another
// profile, or under other settings) write no bundle, and the run says it did not complete.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBounded, type BoundedRun } from '../../support/conformance-run.ts';
import { PLAYWRIGHT, writeTeamConfig } from '../../support/team-config.ts';
import { cleanEnv } from '../../support/reference-cli.ts';

const works: string[] = [];

/** A team's config whose rule projects are `projects` (source text), run on one rule. */
async function teamRun(projects: string): Promise<{ reports: string; run: BoundedRun }> {
  const { work, reports, config } = writeTeamConfig('team-targets', projects);
  works.push(work);
  // A bundle an earlier run left must not stay beside these reports either.
  mkdirSync(join(reports, 'bundle'), { recursive: true });
  writeFileSync(join(reports, 'bundle', 'SHA256SUMS'), '');
  const run = await runBounded(
    PLAYWRIGHT,
    ['test', '--config', config, '--grep', 'KEY-VALID-SERVED:'],
    cleanEnv({ CONFORMANCE_BUNDLE: '1' }),
    180_000,
  );
  return { reports, run };
}

let profiles: { reports: string; run: BoundedRun };
let settings: { reports: string; run: BoundedRun };

before(async () => {
  profiles = await teamRun(`
    ...conformanceProjects({ protocols: ['h1'], profile: 'strict', name: 'deployment' }),
    ...conformanceProjects({ protocols: ['h1'], profile: 'default', name: 'copy' }),`);
  settings = await teamRun(`
    ...conformanceProjects({ protocols: ['h1'], name: 'deployment' }),
    ...conformanceProjects({ protocols: ['h2'], maxRetries: 20, name: 'retried' }),`);
});

after(() => works.forEach((work) => rmSync(work, { recursive: true, force: true })));

for (const [what, made] of [
  ['two targets (one under two profiles)', () => profiles],
  ['one target under two sets of settings', () => settings],
] as const)
  test(`rule projects of ${what} write no bundle, and the run says why`, () => {
    const { reports, run } = made();
    assert.ok(existsSync(join(reports, 'conformance.json')), `${run.stdout}${run.stderr}`);
    assert.equal(existsSync(join(reports, 'bundle')), false, 'no bundle, not even an earlier one');
    assert.match(run.stderr, /No bundle written: the rules of 2 targets \(or settings\) were run as one\./);
    assert.match(
      run.stderr,
      /The run did not complete: the rule projects check 2 different targets \(or one with different settings\), but a report \(and its certificate\) is one target's under one set of settings/,
    );
  });
