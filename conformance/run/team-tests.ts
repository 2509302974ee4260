// The team's own tests, in a team's playwright.config.ts beside the conformance projects: the kit's
// reporter judges the rules only, yet its verdict line was the console's last, `VERDICT:
// CONFORMANT` over a run that exited 1 for a team test that failed, shown by no reporter of the
// team's config. Their outcome is said after the verdict, with each failed test's title and first
// error line, so that a verdict never stands alone over a failed run.
import { stripVTControlCharacters } from 'node:util';
import type { TestCase, TestResult } from '@playwright/test/reporter';

/** How many failed tests are named; the rest are counted. */
const NAMED = 10;

export class TeamTests {
  #ran = 0;
  #failed: string[] = [];

  /** A test of the team's own projects ended (its last try: a retried test counts once). */
  ended(test: TestCase, result: TestResult): void {
    const lastTry = result.status === 'passed' || result.retry >= test.retries;
    if (!lastTry || result.status === 'skipped') return;
    this.#ran += 1;
    // `unexpected`: failed on its last try (a test marked to fail that fails is `expected`).
    if (test.outcome() !== 'unexpected') return;
    const error = stripVTControlCharacters(result.errors[0]?.message ?? result.status).split('\n')[0];
    this.#failed.push(`${test.titlePath().filter(Boolean).join(' › ')}: ${error}`);
  }

  /** The line said after the verdict, or undefined when the team's config ran no test of its own. */
  summary(): string | undefined {
    if (this.#ran === 0) return undefined;
    if (this.#failed.length === 0) return `Your own tests: ${this.#ran} ran, none failed.`;
    const named = this.#failed.slice(0, NAMED).map((line) => `\n  ✘ ${line}`);
    const more = this.#failed.length > NAMED ? `\n  … and ${this.#failed.length - NAMED} more` : '';
    return `Your own tests: ${this.#failed.length} of ${this.#ran} FAILED — the run fails whatever the verdict above says:${named.join('')}${more}`;
  }
}
