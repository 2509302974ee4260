// The run's traffic, shared by every worker: the pace (once the target has answered 429, every
// worker slows to the rate it allows; `--max-rps` caps it from the start), the retry budget
// (`--retry-budget`: seconds of waiting before retries, for the whole run). Like the answer watch,
// it lives in a file of the run's state directory: Playwright's workers are separate processes, and a worker replaced after a failed
// test must not start again at full speed. Without that file (a client used outside a run) the
// state is this process's own.
import {
  closeSync,
  constants,
  ftruncateSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { type Environment, handOver } from '../env.ts';
import { runSettings } from '../settings.ts';

export interface TrafficState {
  /** Milliseconds between two requests of the run; 0: unpaced. */
  intervalMs: number;
  /** When the next request of the run may start (epoch ms). */
  nextSlotAt: number;
  /** Start times of the requests of the last few seconds: the rate the target let through. */
  recentSends: number[];
  /** When the pace was last set from a 429 the target sent (epoch ms; 0: never). */
  limitedAt: number;
  /** Requests sent since then: what the target let through between two of its 429s. */
  sentSinceLimited: number;
  /** Milliseconds waited before retries so far. */
  waitedMs: number;
  /** Answers of the target's own (not transient) so far: what a front let through. */
  served?: number;
}

/** How far back `recentSends` reaches. */
const RECENT_MS = 2_000;
/** 429s closer together than this are one burst (the workers' requests in flight at once). */
const COOL_DOWN_MS = 1_000;
/** Of an announced rate, the share the run uses: the target's clock and window are not the suite's. */
const ANNOUNCED_SHARE = 0.9;
/** The slowest pace an estimate sets; below it a run would take longer than anyone waits. */
const MIN_RATE = 0.5;

export function initialTraffic(maxRps: number | undefined): TrafficState {
  return {
    intervalMs: maxRps ? 1000 / maxRps : 0,
    nextSlotAt: 0,
    recentSends: [],
    limitedAt: 0,
    sentSinceLimited: 0,
    waitedMs: 0,
    served: 0,
  };
}

let ownState: TrafficState | undefined;

/**
 * The run's traffic file, named by the config (ENV.trafficFile, in the run's state directory); none
 * outside a run. A hand-over between the run's processes (a file they share), not a setting.
 */
export function trafficFileOfRun(env?: Environment): string | undefined {
  return handOver('trafficFile', env);
}

/** Reads the state, lets `change` update it and returns what `change` returns, atomically across workers. */
export function withTraffic<T>(change: (state: TrafficState) => T, env?: Environment): T {
  const file = trafficFileOfRun(env);
  if (!file) {
    ownState ??= initialTraffic(runSettings().maxRps);
    return change(ownState);
  }
  return withLock(`${file}.lock`, () => {
    const state = readTraffic(file) ?? initialTraffic(runSettings().maxRps);
    const result = change(state);
    rewrite(file, JSON.stringify(state));
    return result;
  });
}

/**
 * Replaces the file's content with `text`, as writeFileSync does, but without emptying it first:
 * on ext4 a file truncated to nothing and written again is flushed to disk when it is closed
 * (the file system's guard for programs that replace a file that way), about a millisecond or more
 * for each of the two writes of every request. Written in place and then cut to its new length,
 * it is not. Workers read it only under the same lock, and the runner only once they have ended.
 */
function rewrite(file: string, text: string): void {
  const bytes = Buffer.from(text);
  const descriptor = openSync(file, constants.O_WRONLY | constants.O_CREAT, 0o666);
  try {
    writeSync(descriptor, bytes, 0, bytes.length, 0);
    ftruncateSync(descriptor, bytes.length);
  } finally {
    closeSync(descriptor);
  }
}

export function readTraffic(file: string): TrafficState | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as TrafficState;
  } catch {
    return undefined;
  }
}

/** Milliseconds this request must wait for its slot; the slot is taken. */
export function takeSlot(state: TrafficState, now: number): number {
  const slot = state.intervalMs > 0 || state.nextSlotAt > now ? Math.max(now, state.nextSlotAt) : now;
  state.nextSlotAt = Math.max(state.nextSlotAt, slot + state.intervalMs);
  state.recentSends = [...state.recentSends.filter((time) => time > now - RECENT_MS), slot];
  state.sentSinceLimited += 1;
  return slot - now;
}

/**
 * A 429: no worker sends before the answer's Retry-After has passed, and the pace drops — never
 * above the pace already set — to just under the rate the target announced, or else:
 * - at the first 429, to a quarter of what the run sent in the last second: a rate limiter lets a
 *   burst through before its first 429, so what got through then overstates its rate;
 * - at a later one, to just under what got through since the one before: between two 429s a token
 *   bucket or a window is drained at both ends, so that count over that time is its rate.
 */
export function slowDown(
  state: TrafficState,
  now: number,
  waitMs: number,
  announcedRate: number | undefined,
): void {
  state.nextSlotAt = Math.max(state.nextSlotAt, now + waitMs);
  let rate: number;
  if (announcedRate !== undefined) {
    rate = announcedRate * ANNOUNCED_SHARE;
  } else if (state.limitedAt === 0) {
    rate = state.recentSends.filter((time) => time > now - 1000 && time <= now).length / 4;
  } else if (now - state.limitedAt >= COOL_DOWN_MS) {
    rate = (0.9 * state.sentSinceLimited) / ((now - state.limitedAt) / 1000);
  } else {
    return;
  }
  state.limitedAt = now;
  state.sentSinceLimited = 0;
  paceAtMost(state, rate);
}

/**
 * A rate the target announces on any answer (RateLimit-Policy): the run keeps just under it from
 * then on, before any 429 — never faster than the pace already set.
 */
export function keepUnder(state: TrafficState, announcedRate: number): void {
  paceAtMost(state, announcedRate * ANNOUNCED_SHARE);
}

/** Requests per second from now on: `rate`, or the pace already set if slower, never below MIN_RATE. */
function paceAtMost(state: TrafficState, rate: number): void {
  const current = state.intervalMs > 0 ? 1000 / state.intervalMs : Infinity;
  state.intervalMs = 1000 / Math.max(MIN_RATE, Math.min(current, rate));
}

/** Spends `waitMs` of the retry budget if it is there; false when the run has no more to wait. */
export function spendRetryBudget(state: TrafficState, waitMs: number, budgetMs: number): boolean {
  if (state.waitedMs + waitMs > budgetMs) return false;
  state.waitedMs += waitMs;
  return true;
}

/** Milliseconds of the run's retry budget not yet waited. */
export function budgetLeft(state: TrafficState, budgetMs: number): number {
  return Math.max(0, budgetMs - state.waitedMs);
}

/** The longest wait a timer is given: longer ones would overflow setTimeout (2^31 - 1 ms). */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The requests per second the run is held to, or undefined while it is unpaced. */
export function pacedRate(state: TrafficState): number | undefined {
  return state.intervalMs > 0 ? 1000 / state.intervalMs : undefined;
}

/** A lock file made with O_EXCL: only one worker at a time reads and writes the state. */
function withLock<T>(lock: string, body: () => T): T {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A worker killed while holding it leaves it behind: it is never held for long.
      if (isOlderThan(lock, 1_000) || Date.now() > deadline) rmSync(lock, { force: true });
      else pause(1);
    }
  }
  try {
    return body();
  } finally {
    rmSync(lock, { force: true });
  }
}

function isOlderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > ms;
  } catch {
    return false;
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function pause(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
