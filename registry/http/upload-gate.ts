// How many uploads the registry takes at once. A publish holds its bundle in memory while it is
// read, verified and stored, so uploads in flight are bounded (--max-uploads): one past the bound
// waits for a slot without its body being read (the client's send is held by TCP, not kept in
// memory), and one past the waiting line is refused at once, 503 with Retry-After, before any of
// its body is read. Memory then stays bounded however many vendors publish at the same moment.
export const DEFAULT_MAX_UPLOADS = 4;

export class UploadGate {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  /** `max` uploads in flight, and as many again waiting for a slot. */
  constructor(
    readonly max: number,
    readonly maxWaiting = max,
  ) {}

  /**
   * Resolves with a release function once a slot is free; undefined at once when the slot and the
   * waiting line are full (the caller refuses the upload).
   */
  enter(): Promise<(() => void) | undefined> {
    if (this.inFlight < this.max) {
      this.inFlight++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.resolve(undefined);
    // A slot is handed straight from the upload that leaves to the first waiting: inFlight stays.
    return new Promise((resolve) => this.waiting.push(() => resolve(this.releaser())));
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    };
  }
}
