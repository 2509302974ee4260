// Sign-in throttling: failed sign-ins are counted per account (tenant and e-mail, known or not)
// and per client address. Past a few free failures, each further failure makes that account or
// address wait before its next attempt — 1 s, then twice as long after each failure, never more
// than `maxDelayMs` — and an attempt during the wait is answered 429 with `Retry-After`, without
// checking the password (so it costs no scrypt either). An attempt during a wait does not count
// as a failure, a success clears its account's count, and a count is forgotten `forgetMs` after its
// last failure: a guesser is slowed to one guess per `maxDelayMs`, and the real user is never
// locked out for longer than that.

export interface ThrottleSettings {
  /** Failures allowed before any wait. */
  freeFailures: number;
  /** The wait after the first failure past the free ones; it doubles with each further failure. */
  baseDelayMs: number;
  /** The longest wait. */
  maxDelayMs: number;
  /** A count is dropped this long after its last failure. */
  forgetMs: number;
  /** At most this many counts are held; the oldest goes first. */
  maxEntries: number;
}

export const ACCOUNT_THROTTLE: ThrottleSettings = {
  freeFailures: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 5 * 60_000,
  forgetMs: 60 * 60_000,
  maxEntries: 10_000,
};

/** An address may try several accounts (a shared office address), so it gets more free failures. */
export const ADDRESS_THROTTLE: ThrottleSettings = { ...ACCOUNT_THROTTLE, freeFailures: 20 };

interface Count {
  failures: number;
  lastFailureMs: number;
}

export class Throttle {
  // In order of last failure (a counted key is moved to the end): the first is the oldest.
  readonly #counts = new Map<string, Count>();
  readonly #settings: ThrottleSettings;
  readonly #now: () => number;

  constructor(settings: ThrottleSettings, now: () => number = Date.now) {
    this.#settings = settings;
    this.#now = now;
  }

  /** How long `key` must still wait before its next attempt, in ms; 0 when it may try now. */
  waitMs(key: string): number {
    const count = this.#current(key);
    if (!count || count.failures < this.#settings.freeFailures) return 0;
    const delay = Math.min(
      this.#settings.maxDelayMs,
      this.#settings.baseDelayMs * 2 ** Math.min(30, count.failures - this.#settings.freeFailures),
    );
    return Math.max(0, count.lastFailureMs + delay - this.#now());
  }

  failed(key: string): void {
    const count = this.#current(key) ?? { failures: 0, lastFailureMs: 0 };
    this.#counts.delete(key);
    count.failures += 1;
    count.lastFailureMs = this.#now();
    this.#counts.set(key, count);
    if (this.#counts.size > this.#settings.maxEntries) {
      const oldest = this.#counts.keys().next();
      if (!oldest.done) this.#counts.delete(oldest.value);
    }
  }

  succeeded(key: string): void {
    this.#counts.delete(key);
  }

  #current(key: string): Count | undefined {
    const count = this.#counts.get(key);
    if (count && this.#now() - count.lastFailureMs > this.#settings.forgetMs) {
      this.#counts.delete(key);
      return undefined;
    }
    return count;
  }
}

/** The two throttles of the panel's sign-in. */
export class SignInThrottle {
  readonly #accounts: Throttle;
  readonly #addresses: Throttle;

  constructor(
    accounts: ThrottleSettings = ACCOUNT_THROTTLE,
    addresses: ThrottleSettings = ADDRESS_THROTTLE,
    now: () => number = Date.now,
  ) {
    this.#accounts = new Throttle(accounts, now);
    this.#addresses = new Throttle(addresses, now);
  }

  /** Whole seconds to wait before this attempt may be checked, or 0. */
  retryAfterSeconds(attempt: SignInAttempt): number {
    const wait = Math.max(
      this.#accounts.waitMs(accountKey(attempt)),
      this.#addresses.waitMs(attempt.address),
    );
    return Math.ceil(wait / 1000);
  }

  failed(attempt: SignInAttempt): void {
    this.#accounts.failed(accountKey(attempt));
    this.#addresses.failed(attempt.address);
  }

  /** The account's count is cleared; the address's stays, so one good account does not reset it. */
  succeeded(attempt: SignInAttempt): void {
    this.#accounts.succeeded(accountKey(attempt));
  }
}

export interface SignInAttempt {
  tenant: string;
  email: string;
  /** The client's address (the TCP peer). */
  address: string;
}

function accountKey(attempt: SignInAttempt): string {
  return `${attempt.tenant}\0${attempt.email.trim().toLowerCase()}`;
}
