// A bounded buffer of the most recent entries: a fixed number of slots written in a circle, so
// that recording never allocates beyond the entry itself and the oldest entry gives way to the
// newest, counted as dropped.

export class Ring<T> {
  readonly capacity: number;
  readonly #slots: (T | undefined)[];
  #next = 0;
  #size = 0;
  #dropped = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#slots = new Array<T | undefined>(capacity).fill(undefined);
  }

  push(entry: T): void {
    if (this.#size === this.capacity) this.#dropped += 1;
    else this.#size += 1;
    this.#slots[this.#next] = entry;
    this.#next = (this.#next + 1) % this.capacity;
  }

  get size(): number {
    return this.#size;
  }

  /** How many entries were pushed out to make room since the ring was made. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The entries held, oldest first. */
  entries(): T[] {
    const start = (this.#next - this.#size + this.capacity) % this.capacity;
    const out: T[] = [];
    for (let offset = 0; offset < this.#size; offset++) {
      out.push(this.#slots[(start + offset) % this.capacity] as T);
    }
    return out;
  }

  /** Keeps only the entries `keep` accepts, in order; returns how many were removed. */
  retain(keep: (entry: T) => boolean): number {
    const kept = this.entries().filter(keep);
    const removed = this.#size - kept.length;
    this.#slots.fill(undefined);
    kept.forEach((entry, index) => (this.#slots[index] = entry));
    this.#size = kept.length;
    this.#next = kept.length % this.capacity;
    return removed;
  }
}
