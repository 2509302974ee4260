// What a front that refuses requests (429, 503) saw of the suite's traffic: how many requests,
// how many it refused, how many of those after its first refusal, and the highest number of
// requests that arrived in any one-second window after that first refusal — the suite's rate
// once it had been told to slow down.

export interface FrontCounts {
  requests: number;
  refused: number;
  /** Refusals after the first one. */
  refusedAfterFirst: number;
  /** The most requests that arrived within any 1 s (a sliding window) after the first refusal. */
  maxPerSecondAfterFirst: number;
}

/** Arrivals kept for the window count: far more than a run of the suite makes. */
const MAX_KEPT_ARRIVALS = 100_000;
const WINDOW_MS = 1_000;

export class FrontCounters {
  #requests = 0;
  #refused = 0;
  #firstRefusalAt: number | undefined;
  readonly #arrivalsAfterFirst: number[] = [];

  /** One request, at `arrivedAt` (ms, a monotonic clock), and whether the front refused it. */
  record(arrivedAt: number, refused: boolean): void {
    this.#requests += 1;
    if (this.#firstRefusalAt !== undefined && this.#arrivalsAfterFirst.length < MAX_KEPT_ARRIVALS)
      this.#arrivalsAfterFirst.push(arrivedAt);
    if (!refused) return;
    this.#refused += 1;
    this.#firstRefusalAt ??= arrivedAt;
  }

  counts(): FrontCounts {
    return {
      requests: this.#requests,
      refused: this.#refused,
      refusedAfterFirst: Math.max(0, this.#refused - 1),
      maxPerSecondAfterFirst: maxInAnyWindow(this.#arrivalsAfterFirst, WINDOW_MS),
    };
  }
}

/** The most of `times` (ascending) within any half-open window [t, t + windowMs). */
export function maxInAnyWindow(times: readonly number[], windowMs: number): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
