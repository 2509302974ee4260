// A bounded buffer of the most recent entries: slots written in a circle, so that the oldest entry
// gives way to the newest, counted as dropped. An entry is either pushed, or written in place into
// the slot `claim` hands out: then a full ring reuses its oldest entry's object and recording
// allocates nothing. The slots are made as entries arrive (up to the capacity), not up front: most
// rings of a server with many tenants stay small.

export class Ring<T> {
  readonly capacity: number;
  #slots: (T | undefined)[] = [];
  /** The slot of the oldest entry. While the slots are fewer than the capacity, head + size = slots. */
  #head = 0;
  #size = 0;
  #dropped = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  push(entry: T): void {
    if (this.#size === this.capacity) {
      this.#slots[this.#head] = entry;
      this.#head = (this.#head + 1) % this.capacity;
      this.#dropped += 1;
      return;
    }
    const index = (this.#head + this.#size) % this.capacity;
    if (index === this.#slots.length) this.#slots.push(entry);
    else this.#slots[index] = entry;
    this.#size += 1;
  }

  /**
   * The slot of the next entry, to be overwritten whole by the caller: the oldest entry's when the
   * ring is full (counted as dropped), otherwise a free one, made by `make` when it has none yet.
   */
  claim(make: () => T): T {
    if (this.#size === this.capacity) {
      const oldest = this.#slots[this.#head] as T;
      this.#head = (this.#head + 1) % this.capacity;
      this.#dropped += 1;
      return oldest;
    }
    const index = (this.#head + this.#size) % this.capacity;
    let slot = this.#slots[index];
    if (slot === undefined) {
      slot = make();
      if (index === this.#slots.length) this.#slots.push(slot);
      else this.#slots[index] = slot;
    }
    this.#size += 1;
    return slot;
  }

  /** Drops the oldest entry (counted), to make room elsewhere; false when the ring is empty. */
  dropOldest(): boolean {
    if (this.#size === 0) return false;
    this.#slots[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.capacity;
    this.#size -= 1;
    this.#dropped += 1;
    return true;
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
    const out: T[] = [];
    for (let offset = 0; offset < this.#size; offset++) {
      out.push(this.#slots[(this.#head + offset) % this.capacity] as T);
    }
    return out;
  }

  /** Keeps only the entries `keep` accepts, in order; returns how many were removed. */
  retain(keep: (entry: T) => boolean): number {
    const kept = this.entries().filter(keep);
    const removed = this.#size - kept.length;
    this.#slots = kept;
    this.#head = 0;
    this.#size = kept.length;
    return removed;
  }
}
