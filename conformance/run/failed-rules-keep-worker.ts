// Playwright replaces its worker process after every test that fails unexpectedly, and a new
// worker starts again what the old one had (a process, the specs, the clients, the proxy): a
// deployment with a dozen defects cost several times the CPU of a correct one. In the `run`
// command's config (playwright.config.ts) the kit's reporter decides the run's status and exit
// code and writes every report from each rule's own result — its status, `failed`, whatever
// Playwright expected — so a rule that failed with a verdict (a ConformanceFailure, which leaves
// the worker as sound as a pass does) is marked expected to fail as it fails, on its last try, and
// the worker goes on. The conformance reporter, the first of the run's reporters, then sets the
// test's expected status back to passed as the test ends (failureShownAsFailure), so that
// Playwright's own reports (HTML, JSON, blob) and its summary count the failure as a failure: the
// mark only lets the worker go on. A team's config never sets the option: there Playwright's status and exit
// code are the team's, and a failed rule fails them as before. Nor is it done while Playwright
// stops at a number of failures (--max-failures), which counts only unexpected ones.
import { test, type TestInfo } from '@playwright/test';
import type { TestCase, TestResult } from '@playwright/test/reporter';

/** The annotation a rule kept its worker by: Playwright's own reports show it. */
export const FAILED_KEPT_WORKER = 'failed-rule-kept-worker';

export function keepWorkerAfterFailure(testInfo: TestInfo, enabled: boolean): void {
  const lastTry = testInfo.retry >= testInfo.project.retries;
  if (!enabled || !lastTry || testInfo.config.maxFailures > 0) return;
  testInfo.annotations.push({
    type: FAILED_KEPT_WORKER,
    description:
      "The rule failed (its verdict is in the conformance reports). Marked expected to fail so that Playwright keeps the worker: the run's status is the conformance reporter's.",
  });
  test.fail();
}

/**
 * In the reporter, before the other reporters see the test: a rule that kept its worker is, for
 * every report, the unexpected failure it is (the worker has already gone on by then).
 */
export function failureShownAsFailure(test: TestCase, result: TestResult): void {
  if (result.annotations.some((annotation) => annotation.type === FAILED_KEPT_WORKER))
    test.expectedStatus = 'passed';
}
