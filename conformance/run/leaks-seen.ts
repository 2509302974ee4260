// A leak seen once is a failure. A rule that saw a value it must never see — another tenant's
// data, data without a valid key, data over plain HTTP (judging/checks.ts marks these failures
// `leak`) — fails whatever a later try saw: Playwright's `--retries` re-runs a rule that failed,
// and the reporter would otherwise keep only the last try. Here, the try that leaked stays the
// rule's outcome, its evidence in every report, its message saying that a retry does not undo it.
// A retry still replaces a try that ERRORed or failed otherwise. A leak no rule's own check saw
// (a learning request's, an ADVISORY probe's) is the run's checker's (run-judgement.ts).
import type { TestOutcome } from '../report/verdict.ts';

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
}
