// A leak seen once is a failure. A rule that saw a value it must never see — another tenant's
// data, data without a valid key, data over plain HTTP (judging/checks.ts marks these failures
// `leak`) — fails whatever a later try saw: Playwright's `--retries` re-runs a rule that failed,
// and the reporter would otherwise keep only the last try. Here, the try that leaked stays the
// rule's outcome, its evidence in every report, its message saying that a retry does not undo it.
// A retry still replaces a try that ERRORed or failed otherwise. And a request the suite sent
// without a key to learn the tenants' data (judging/knowledge.ts) that got data fails
// AUTH-MISSING-HEADER, though no rule's test sent it.
import type { TestResult } from '@playwright/test/reporter';
import type { TestOutcome } from '../report/verdict.ts';
import { ANNOTATION } from './annotations.ts';

/** The rule a keyless request served with data breaks (spec §5 Scheme 1, §7). */
export const KEYLESS_RULE = 'AUTH-MISSING-HEADER';

const RETRY_NOTE =
  ' (A later try of this rule did not see it: a leak seen once is a failure, whatever a retry sees.)';

type Failure = NonNullable<TestOutcome['failure']> & { leak?: boolean };

function isLeak(outcome: TestOutcome): boolean {
  const failure: Failure | undefined = outcome.failure;
  return outcome.status !== 'passed' && failure?.leak === true;
}

export class LeaksSeen {
  /** The try that leaked, by protocol and test. */
  readonly #leaked = new Map<string, TestOutcome>();
  readonly #learning: { protocol: string; outcome: TestOutcome }[] = [];

  /**
   * The outcome that stands for this try of a test: its own, or — a retry after a try that
   * leaked — that try's, which is then kept as the test's (the caller records only its own).
   */
  standing(protocol: string, testId: string, outcome: TestOutcome, retry: number): TestOutcome {
    const key = `${protocol}\n${testId}`;
    const leaked = this.#leaked.get(key);
    if (leaked && retry > 0) {
      if (leaked.failure && !leaked.failure.message.endsWith(RETRY_NOTE))
        leaked.failure.message += RETRY_NOTE;
      return leaked;
    }
    if (isLeak(outcome)) this.#leaked.set(key, outcome);
    return outcome;
  }

  /** Keeps a learning leak the result carries (the worker's first test carries its learning). */
  learned(protocol: string, result: TestResult): void {
    const body = result.attachments.find((attachment) => attachment.name === ANNOTATION.learningLeak)?.body;
    if (!body) return;
    const failure = JSON.parse(body.toString('utf8')) as Failure;
    this.#learning.push({ protocol, outcome: { status: 'failed', failure } });
  }

  /** The learning leaks, each a failed outcome of KEYLESS_RULE over its protocol. */
  learningFailures(): readonly { protocol: string; outcome: TestOutcome }[] {
    return this.#learning;
  }
}
