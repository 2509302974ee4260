// The delivery worker: works the queue in the database outside any request, so a slow or failing
// endpoint never slows a publish. At most `maxInFlight` attempts at once, each bounded by
// `timeoutMs`; it wakes when an event is queued (kick), when the next retry is due, and every
// `pollMs` (a delivery queued by another registry on the same PostgreSQL server). At start it
// claims whatever a stopped registry left pending; at close it gives back what it holds.
import type { Database } from '../database/database.ts';
import { attemptDelivery } from './attempt.ts';
import { DEFAULT_RETRY, nextAttempt, type RetryPolicy } from './backoff.ts';
import { claimDue, nextDue, recordAttempt, releaseClaim, type Claimed } from './store.ts';
import { hostAllowed } from './url.ts';

/** The shortest wait before the queue is read again when nothing due could be claimed. */
const RECHECK_FLOOR_MS = 100;

export interface WorkerOptions {
  /** PEM CAs trusted besides the system's (a private CA of the receivers). */
  trustedCas?: readonly string[];
  /** Hosts a delivery may go to (`--webhook-hosts`); undefined: any https host. */
  allowedHosts?: readonly string[];
  maxInFlight?: number;
  timeoutMs?: number;
  pollMs?: number;
  retry?: Partial<RetryPolicy>;
}

export class DeliveryWorker {
  private readonly inFlight = new Map<number, { controller: AbortController; done: Promise<void> }>();
  private readonly retry: RetryPolicy;
  private readonly maxInFlight: number;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private wake: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly options: WorkerOptions,
    private readonly log: (line: string) => void,
  ) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.maxInFlight = options.maxInFlight ?? 4;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.pollMs = options.pollMs ?? 5_000;
  }

  /** Looks for due deliveries now (an event was queued, an attempt ended, the registry started). */
  kick(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.tick()
      .catch((error: unknown) =>
        this.log(`webhooks: the queue could not be read: ${(error as Error).message}`),
      )
      .finally(() => {
        this.ticking = undefined;
      });
  }

  private async tick(): Promise<void> {
    do {
      this.again = false;
      const free = this.maxInFlight - this.inFlight.size;
      if (free <= 0) return;
      const holding = [...this.inFlight.keys()];
      for (const claimed of await claimDue(this.db, free, this.timeoutMs + 5_000, holding))
        this.start(claimed);
    } while (this.again && !this.stopped);
    if (this.stopped) return;
    const due = await nextDue(this.db, [...this.inFlight.keys()]);
    const wait = due ? due.getTime() - Date.now() : this.pollMs;
    // A delivery already due that this tick did not claim (another registry's claim holds its row
    // for a moment, or it fell due in between) is looked at again after a pause: a re-arm at 0
    // would query the queue in a loop for as long as the row stays unclaimable.
    const delay = Number.isFinite(wait)
      ? Math.min(this.pollMs, Math.max(RECHECK_FLOOR_MS, wait))
      : this.pollMs;
    clearTimeout(this.wake);
    this.wake = setTimeout(() => this.kick(), delay);
    this.wake.unref();
  }

  private start(claimed: Claimed): void {
    const controller = new AbortController();
    const done = this.attempt(claimed, controller.signal)
      .catch((error: unknown) =>
        this.log(
          `webhooks: delivery ${claimed.deliveryId} could not be recorded: ${(error as Error).message}`,
        ),
      )
      .finally(() => {
        this.inFlight.delete(claimed.id);
        this.kick();
      });
    this.inFlight.set(claimed.id, { controller, done });
  }

  private async attempt(claimed: Claimed, signal: AbortSignal): Promise<void> {
    const host = new URL(claimed.url).hostname.replace(/^\[|\]$/g, '');
    const result = hostAllowed(host, this.options.allowedHosts)
      ? await attemptDelivery(claimed, {
          trustedCas: this.options.trustedCas ?? [],
          timeoutMs: this.timeoutMs,
          signal,
        })
      : { error: `the host ${host} is no longer one this registry delivers to (--webhook-hosts)` };
    // Stopped before the endpoint answered: the delivery goes back to the queue, this try uncounted.
    if (signal.aborted && !('status' in result)) return releaseClaim(this.db, claimed.id);
    const attempts = claimed.attempts + 1;
    if ('status' in result && result.status >= 200 && result.status < 300) {
      await recordAttempt(this.db, claimed.id, { state: 'delivered', status: result.status });
      this.log(
        `webhooks: delivered ${claimed.event} ${claimed.deliveryId} (${result.status}, attempt ${attempts})`,
      );
      return;
    }
    const status = 'status' in result ? result.status : null;
    const error = 'status' in result ? `the endpoint answered ${result.status}` : result.error;
    const retryAt = nextAttempt(this.retry, attempts, claimed.createdAt, new Date());
    await recordAttempt(
      this.db,
      claimed.id,
      retryAt ? { state: 'retry', status, error, retryAt } : { state: 'failed', status, error },
    );
    this.log(
      `webhooks: ${claimed.event} ${claimed.deliveryId} attempt ${attempts}: ${error}; ${retryAt ? `next at ${retryAt.toISOString()}` : 'failed, no attempt left'}`,
    );
  }

  /** Stops: no new attempt; those in flight are aborted and their deliveries given back. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.wake);
    await this.ticking;
    for (const { controller } of this.inFlight.values()) controller.abort();
    await Promise.all([...this.inFlight.values()].map(({ done }) => done));
  }
}
