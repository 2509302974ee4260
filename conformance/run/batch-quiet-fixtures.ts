// In a batch (mutation/batch.config.ts: one Playwright run that checks the rules of several runs —
// the mutation campaign's variants, a test file's deployments) the only reporter is the batch
// reporter, which reads each rule's status, annotations and attachments and nothing else of what
// Playwright records around a test. Two of Playwright's own automatic fixtures record it, and cost
// about a fifth of a batch worker's CPU, in each of the thousands of tests a campaign runs:
// - `_setupArtifacts` makes a step of every API call (each `fetch` of a rule's request context),
//   with a captured, source-mapped stack, sent to the runner; it starts and stops a trace chunk on
//   every request context at each test's start and end (the trace is off: nothing is recorded);
//   and it writes an error-context.md beside a failed test, which no report of the kit reads.
// - `_setupContextOptions` sets a browser's test-id attribute, the snapshot suffix and the
//   contexts' default timeout, and depends on three option fixtures that Playwright tears down
//   after every test, each as a step with a captured stack.
// The batch replaces them with what the rules use of them: the test's time-out as its project sets
// it, and no default time-out on a request context (the suite gives each request its own), as
// Playwright sets it when no `actionTimeout` is configured — the batch's config sets none. What is
// sent and what is judged do not change; the run command and a team's config keep Playwright's.
import type { TestInfo } from '@playwright/test';
import { batchVariantNames } from './batch-variants.ts';

/**
 * The `box` of the kit's own test fixtures (test.ts): in a batch each is no step at all, where
 * Playwright would send the runner a step (begin and end) for each one's set-up and teardown in
 * every test; elsewhere Playwright's default, so that a run's HTML report shows them as before.
 */
export const KIT_FIXTURE_BOX: 'self' | undefined = batchVariantNames() ? 'self' : undefined;

/** The part of Playwright's worker `playwright` object that its `_setupContextOptions` sets. */
interface ContextDefaults {
  _defaultContextTimeout?: number;
}

type Use = (value: void) => Promise<void>;

/**
 * Overrides of Playwright's automatic fixtures by name (not in its public types). A test in
 * tests/conformance/machinery.test.ts fails if Playwright renames them, which would make these
 * fixtures of their own and lose the saving silently.
 */
export const BATCH_QUIET_FIXTURES = {
  _setupArtifacts: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
    async ({}, use: Use, testInfo: TestInfo) => {
      // As Playwright's: the fixture has no time-out of its own, the test its project's.
      testInfo.setTimeout(testInfo.project.timeout);
      await use();
    },
    { auto: 'all-hooks-included', box: 'self', timeout: 0 },
  ],
  _setupContextOptions: [
    async ({ playwright }: { playwright: ContextDefaults }, use: Use) => {
      // `actionTimeout || 0`, the batch's config setting none: a context's calls wait as long as they need.
      playwright._defaultContextTimeout = 0;
      await use();
      playwright._defaultContextTimeout = undefined;
    },
    { auto: 'all-hooks-included', box: 'self' },
  ],
} as const;
