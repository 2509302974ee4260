// When a failed delivery is tried again: exponential backoff from `baseDelayMs`, doubling at each
// attempt up to `maxDelayMs`, until `maxAttempts` attempts or `maxTotalMs` since the event, after
// which it is failed for good (and kept, with its last answer).

export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
  maxTotalMs: number;
}

/** 10 s, 20 s, 40 s … 10 min: 8 attempts within a day. */
export const DEFAULT_RETRY: RetryPolicy = {
  baseDelayMs: 10_000,
  maxDelayMs: 600_000,
  maxAttempts: 8,
  maxTotalMs: 24 * 3600_000,
};

/** The time of the next attempt after `attempts` failed ones, or undefined when none is left. */
export function nextAttempt(
  policy: RetryPolicy,
  attempts: number,
  createdAt: Date,
  now: Date,
): Date | undefined {
  if (attempts >= policy.maxAttempts) return undefined;
  const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempts - 1, 30));
  const at = new Date(now.getTime() + delay);
  return at.getTime() - createdAt.getTime() > policy.maxTotalMs ? undefined : at;
}
