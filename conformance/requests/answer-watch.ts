// Bounded time against a target that stops answering: after a few consecutive exchanges without
// an HTTP answer, the rest of the run's exchanges are not sent, so every remaining rule ends as an
// ERROR at once instead of each waiting out its time-outs. The count lives in a file of the run's
// state directory (conformance/run/projects.ts), shared by every worker: Playwright starts a fresh worker process after each
// failed test, so a count in memory would start again at zero.
import { readFileSync, writeFileSync } from 'node:fs';
import type { FailedExchange, RequestSummary } from './exchange.ts';
import { ENV } from '../env.ts';

/** Consecutive exchanges without an answer after which the target is taken as gone. */
export const NO_ANSWER_LIMIT = 3;

/** The file the config named for the count (ENV.answerWatchFile); none outside a run. */
function watchFile(): string | undefined {
  return process.env[ENV.answerWatchFile];
}

function counted(): number {
  const file = watchFile();
  if (!file) return 0;
  try {
    return Number(readFileSync(file, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/**
 * Why no more exchanges are sent, or undefined while the target answers. An exchange that is
 * allowed to be refused (plain HTTP, a host that should not exist) does not count either way.
 */
export function stoppedReason(): string | undefined {
  return counted() >= NO_ANSWER_LIMIT
    ? `not sent: the target stopped answering (${NO_ANSWER_LIMIT} consecutive exchanges got no HTTP answer), so the remaining rules could not run`
    : undefined;
}

export function recordAnswer(answered: boolean, refusalExpected: boolean): void {
  const file = watchFile();
  if (refusalExpected || !file) return;
  const current = counted();
  const next = answered ? 0 : current + 1;
  // Written only when it changes: most exchanges answer, and the count stays at 0.
  if (next !== current) writeFileSync(file, String(next));
}

/** An exchange that was never sent, because the target stopped answering. */
export function notSent(request: RequestSummary, reason: string): FailedExchange {
  return { kind: 'failure', request, durationMs: 0, error: reason, notSent: true };
}
