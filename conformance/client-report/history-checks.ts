// The client rules about what a client does next — after its key is refused or revoked, after a
// 429 or 503 with Retry-After, after a request left without an answer — judged over one client's
// entries in the order the journal recorded them (a history, like Elle's checkers: entries in,
// findings out, no I/O). The journal's time of an entry is when its answer was written, and a
// later request's is never before it arrived, so a wait measured between the two is never longer
// than the client's own. Requests a client sends in parallel may be in flight when an answer
// arrives: these checks cannot tell those from a retry (docs/decisions/0036).
import type { JournalEntry } from '../../schemas/generated/journal.ts';
import type { ClientRuleId } from '../catalog/client-rules.ts';

/** A rule's reading of a client's history: how many entries it applied to, and the ones that broke it. */
export interface HistoryFinding {
  applicable: number;
  violating: { entry: JournalEntry; detail: string }[];
}

export type HistoryRuleId =
  | 'CLIENT-KEY-NOT-REVOKED'
  | 'CLIENT-STOPS-ON-INVALID-KEY'
  | 'CLIENT-HONOURS-RETRY-AFTER'
  | 'CLIENT-NO-UNSAFE-RETRY';

/** Methods a retry of which is safe by their definition (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
/** How far the journal's millisecond clocks may round a wait down. */
const CLOCK_GRACE_MS = 10;
/** Requests with a key after its first invalid_api_key answer that are still not a loop. */
const TOLERATED_REPEATS = 1;

const timeOf = (entry: JournalEntry): number => Date.parse(entry.time);
const keyOf = (entry: JournalEntry): string => `${entry.key ?? ''} ${entry.keyFingerprint ?? ''}`;
const sameRequest = (a: JournalEntry, b: JournalEntry): boolean => a.method === b.method && a.path === b.path;

export const HISTORY_CHECKS: Record<HistoryRuleId, (entries: readonly JournalEntry[]) => HistoryFinding> = {
  'CLIENT-KEY-NOT-REVOKED': (entries) => {
    const finding: HistoryFinding = { applicable: 0, violating: [] };
    let acceptedBefore = false;
    let told = false;
    for (const entry of entries) {
      if (entry.keyRevoked === undefined) continue;
      finding.applicable += 1;
      if (!entry.keyRevoked) {
        acceptedBefore = true;
        continue;
      }
      // The request that finds the key revoked while the client runs: the client could not know.
      if (acceptedBefore && !told) told = true;
      else
        finding.violating.push({
          entry,
          detail: told ? 'a key used again after it was found revoked' : 'a revoked key',
        });
    }
    return finding;
  },

  'CLIENT-STOPS-ON-INVALID-KEY': (entries) => {
    const finding: HistoryFinding = { applicable: 0, violating: [] };
    const repeats = new Map<string, number>();
    for (const entry of entries) {
      if (entry.key === undefined) continue;
      const key = keyOf(entry);
      const seen = repeats.get(key);
      if (seen !== undefined) {
        repeats.set(key, seen + 1);
        if (seen + 1 > TOLERATED_REPEATS)
          finding.violating.push({
            entry,
            detail: `the key was sent again (${seen + 1} times) after an invalid_api_key answer`,
          });
      } else if (entry.errorCode === 'invalid_api_key') {
        finding.applicable += 1;
        repeats.set(key, 0);
      }
    }
    return finding;
  },

  'CLIENT-HONOURS-RETRY-AFTER': (entries) => {
    const finding: HistoryFinding = { applicable: 0, violating: [] };
    entries.forEach((answered, index) => {
      if (answered.retryAfter === undefined) return;
      finding.applicable += 1;
      const until = timeOf(answered) + answered.retryAfter * 1000 - CLOCK_GRACE_MS;
      for (const later of entries.slice(index + 1)) {
        if (timeOf(later) >= until) break;
        if (!sameRequest(answered, later)) continue;
        const waited = timeOf(later) - timeOf(answered);
        finding.violating.push({
          entry: later,
          detail: `sent again ${waited} ms after a ${answered.status} with Retry-After: ${answered.retryAfter}`,
        });
      }
    });
    return finding;
  },

  'CLIENT-NO-UNSAFE-RETRY': (entries) => {
    const finding: HistoryFinding = { applicable: 0, violating: [] };
    entries.forEach((cut, index) => {
      if (cut.cut === undefined || IDEMPOTENT.has(cut.method ?? 'GET')) return;
      finding.applicable += 1;
      if (cut.refused === true) return;
      const retry = entries.slice(index + 1).find((later) => sameRequest(cut, later));
      if (retry && !(cut.idempotencyKey === true && retry.idempotencyKey === true))
        finding.violating.push({
          entry: retry,
          detail: `a ${cut.method ?? ''} sent again without an Idempotency-Key after a ${cut.cut} that may have left it processed`,
        });
    });
    return finding;
  },
};

export function isHistoryRule(id: ClientRuleId): id is HistoryRuleId {
  return id in HISTORY_CHECKS;
}
