// Bounded time against a target that stops answering: after a few consecutive exchanges without
// an HTTP answer (or, with the retry budget spent, many with only transient answers from a front),
// the rest of the run's exchanges are not sent, so every remaining rule ends as an ERROR at once
// instead of each waiting out its time-outs. The count lives in a file of the run's
// state directory (conformance/run/projects.ts), shared by every worker: Playwright starts a fresh worker process after each
// failed test, so a count in memory would start again at zero.
import { readFileSync, writeFileSync } from 'node:fs';
import type { FailedExchange, RequestSummary } from './exchange.ts';
import { handOver } from '../env.ts';

/** Consecutive exchanges without an answer after which the target is taken as gone. */
export const NO_ANSWER_LIMIT = 3;

/**
 * Consecutive requests that got only transient answers and were not sent again for want of retry
 * budget (spent, or shorter than the Retry-After asked), with nothing served between them, after
 * which a front is taken as refusing the run: each further request would get one try and the same
 * answer, and each rule would end as an ERROR, costing Playwright a new worker process per rule
 * (minutes against a front that answers 429 to everything).
 */
export const TRANSIENT_ONLY_LIMIT = 10;

/** What the watch counts: a plain number (exchanges without an answer), then `/` and the transient-only ones. */
interface Counts {
  noAnswer: number;
  transientOnly: number;
}

/**
 * The file the config named for the count (ENV.answerWatchFile); none outside a run. A hand-over
 * between the run's processes (a file they share), not a setting.
 */
function watchFile(): string | undefined {
  return handOver('answerWatchFile');
}

function counted(): Counts {
  const file = watchFile();
  if (!file) return { noAnswer: 0, transientOnly: 0 };
  try {
    const [noAnswer, transientOnly] = readFileSync(file, 'utf8').split('/').map(Number);
    return { noAnswer: noAnswer || 0, transientOnly: transientOnly || 0 };
  } catch {
    return { noAnswer: 0, transientOnly: 0 };
  }
}

/**
 * Why no more exchanges are sent, or undefined while the target answers. An exchange that is
 * allowed to be refused (plain HTTP, a host that should not exist) does not count either way.
 */
export function stoppedReason(): string | undefined {
  const counts = counted();
  if (counts.noAnswer >= NO_ANSWER_LIMIT)
    return `not sent: the target stopped answering (${NO_ANSWER_LIMIT} consecutive exchanges got no HTTP answer), so the remaining rules could not run`;
  if (counts.transientOnly >= TRANSIENT_ONLY_LIMIT)
    return `not sent: a front refused the run (${TRANSIENT_ONLY_LIMIT} consecutive requests got only transient answers, such as 429 or 503, with the retry budget spent or too short for the wait asked, and nothing was served between them), so the remaining rules could not run; run again when the front lets the run through, with a larger --retry-budget or a lower --max-rps`;
  return undefined;
}

/**
 * After each exchange: `answered` (an answer of the target's own, or not), or `transientOnly` (only
 * transient answers, and no retry budget left for another try).
 */
export function recordAnswer(answered: boolean | 'transientOnly', refusalExpected: boolean): void {
  const file = watchFile();
  if (refusalExpected || !file) return;
  const current = counted();
  const next: Counts =
    answered === 'transientOnly'
      ? { noAnswer: 0, transientOnly: current.transientOnly + 1 }
      : answered
        ? { noAnswer: 0, transientOnly: 0 }
        : { noAnswer: current.noAnswer + 1, transientOnly: 0 };
  // Written only when it changes: most exchanges answer, and the counts stay at 0.
  if (next.noAnswer !== current.noAnswer || next.transientOnly !== current.transientOnly)
    writeFileSync(
      file,
      next.transientOnly > 0 ? `${next.noAnswer}/${next.transientOnly}` : String(next.noAnswer),
    );
}

/** An exchange that was never sent, because the target stopped answering. */
export function notSent(request: RequestSummary, reason: string): FailedExchange {
  return { kind: 'failure', request, durationMs: 0, error: reason, notSent: true };
}
