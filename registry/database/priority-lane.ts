// The embedded database is one connection in the registry's own process: its statements run one
// after another. Left to PGlite's own queue they run in order of arrival, so a can-i-ship asked
// while eight pages are loading waits for every page query queued before it. This queue sits in
// front of PGlite's, holds one statement (or transaction) in flight, and hands the connection to a
// waiting gate read (can-i-ship, the badge) before any other waiting work: a gate read then waits
// for at most the one statement under way, whatever the crowd.
export type Lane = 'gate' | 'other';

export class PriorityLane {
  private busy = false;
  private readonly waiting: Record<Lane, (() => void)[]> = { gate: [], other: [] };

  /** Runs `work` when the connection is this caller's; gate work goes before other waiting work. */
  async run<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
    if (this.busy) await new Promise<void>((resolve) => this.waiting[lane].push(resolve));
    else this.busy = true;
    try {
      return await work();
    } finally {
      // The connection goes straight to the next in line (busy stays true), gate work first.
      const next = this.waiting.gate.shift() ?? this.waiting.other.shift();
      if (next) next();
      else this.busy = false;
    }
  }

  /** How many wait on each lane (for tests and diagnostics). */
  get queued(): Record<Lane, number> {
    return { gate: this.waiting.gate.length, other: this.waiting.other.length };
  }
}
