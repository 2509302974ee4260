// A team's own tests, beside the conformance projects: the kit's reporter says their outcome after
// the verdict, so that `VERDICT: CONFORMANT` never stands alone over a run a team test failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { TeamTests } from '../../../conformance/run/team-tests.ts';

type Outcome = ReturnType<TestCase['outcome']>;

/** A test of the team's `api` project, and one of its tries. */
function ended(
  teamTests: TeamTests,
  title: string,
  status: TestResult['status'],
  { retry = 0, retries = 0, outcome }: { retry?: number; retries?: number; outcome: Outcome },
): void {
  const testCase = {
    retries,
    outcome: () => outcome,
    titlePath: () => ['', 'api', 'own.spec.ts', title],
  } as unknown as TestCase;
  const error = { message: '\u001b[31mexpect(received).toBe(expected)\u001b[39m\n\nExpected: 200' };
  const result = { status, retry, errors: status === 'failed' ? [error] : [] } as unknown as TestResult;
  teamTests.ended(testCase, result);
}

test('a failed own test is named after the verdict, with its first error line; passes are counted', () => {
  const teamTests = new TeamTests();
  ended(teamTests, 'lists customers', 'passed', { outcome: 'expected' });
  ended(teamTests, 'creates an invoice', 'failed', { outcome: 'unexpected' });
  ended(teamTests, 'not yet', 'skipped', { outcome: 'skipped' });
  assert.equal(
    teamTests.summary(),
    'Your own tests: 1 of 2 FAILED — the run fails whatever the verdict above says:\n  ✘ api › own.spec.ts › creates an invoice: expect(received).toBe(expected)',
  );
});

test('a retried test counts once, by its last try; a flaky pass and an expected failure are not failures', () => {
  const teamTests = new TeamTests();
  ended(teamTests, 'flaky', 'failed', { retry: 0, retries: 1, outcome: 'flaky' });
  ended(teamTests, 'flaky', 'passed', { retry: 1, retries: 1, outcome: 'flaky' });
  ended(teamTests, 'known bug', 'failed', { outcome: 'expected' });
  assert.equal(teamTests.summary(), 'Your own tests: 2 ran, none failed.');
});

test('no own test ran (the conformance projects alone): nothing is said', () => {
  assert.equal(new TeamTests().summary(), undefined);
});

test('many failures: ten named, the rest counted', () => {
  const teamTests = new TeamTests();
  for (let index = 0; index < 12; index++) ended(teamTests, `t${index}`, 'failed', { outcome: 'unexpected' });
  const summary = teamTests.summary() ?? '';
  assert.equal(summary.split('\n  ✘ ').length - 1, 10);
  assert.match(summary, /\n {2}… and 2 more$/);
});
