// Writes a file off the request path: each request for a write gets a promise of a write that
// begins after it, and every request that arrives while a write is under way is served by the one
// next write — a burst of changes costs a few writes, not one each, and never blocks the event loop.

export class CoalescingWriter {
  readonly #write: () => Promise<void>;
  /** The loop of writes under way, or undefined when none is. */
  #draining: Promise<void> | undefined;
  #next: Deferred | undefined;

  /** @param write writes the current state whole (it reads the state when it begins). */
  constructor(write: () => Promise<void>) {
    this.#write = write;
  }

  /** A write that begins after this call: resolves when it is done, rejects if it failed. */
  request(): Promise<void> {
    if (!this.#next) this.#next = deferred();
    const { promise } = this.#next;
    this.#draining ??= this.#drain();
    return promise;
  }

  /** Resolves when no write is under way or waiting (failures included). */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    // Begun from `request`: the first write waits a turn, so that changes made in the same turn
    // share it.
    await Promise.resolve();
    while (this.#next) {
      const batch = this.#next;
      this.#next = undefined;
      try {
        await this.#write();
        batch.resolve();
      } catch (error) {
        batch.reject(error);
      }
    }
    this.#draining = undefined;
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Handled here: a failed write nobody waits for must not end the process.
  promise.catch(() => {});
  return { promise, resolve, reject };
}
