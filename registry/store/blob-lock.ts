// Who may touch the blob store at once: any number of publishes (each writes its blobs, then the
// transaction that references them), or one sweep (which deletes the blobs no row references) alone.
// A sweep that ran between a publish's blob and its commit would delete a blob about to be
// referenced; a publish that found a blob present while a sweep decided to delete it would commit a
// row whose file is gone. First come, first served: a waiting sweep holds back the publishes that
// come after it, so a stream of publishes never starves it.
export class PublishOrSweep {
  private publishing = 0;
  private sweeping = false;
  private readonly waiting: { sweep: boolean; go: () => void }[] = [];

  /** Runs a publish's work alongside other publishes, never during a sweep. */
  publish<T>(work: () => Promise<T>): Promise<T> {
    return this.holding(false, work);
  }

  /** Runs a sweep's work alone: no publish in flight, none started until it ends. */
  sweep<T>(work: () => Promise<T>): Promise<T> {
    return this.holding(true, work);
  }

  private async holding<T>(sweep: boolean, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((go) => {
      this.waiting.push({ sweep, go });
      this.wake();
    });
    try {
      return await work();
    } finally {
      if (sweep) this.sweeping = false;
      else this.publishing--;
      this.wake();
    }
  }

  /** Lets in, in order, whoever may enter now; stops at the first who may not. */
  private wake(): void {
    for (let next = this.waiting[0]; next !== undefined; next = this.waiting[0]) {
      if (this.sweeping || (next.sweep && this.publishing > 0)) return;
      this.waiting.shift();
      if (next.sweep) this.sweeping = true;
      else this.publishing++;
      next.go();
    }
  }
}
