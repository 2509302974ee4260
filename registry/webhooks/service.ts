// What the rest of the registry sees of webhooks: `around` wraps a change (a publish, a yank) to
// queue the events it caused in the change's own transaction (a transactional outbox: a change
// committed always has its events), and the worker delivers them. With no webhook for the deployment a
// change costs one query. A change of one version waits for the one before it in this process, so
// that each reads the state the other left (two registries on one server may merge two changes).
import type { Database, Queryable } from '../database/database.ts';
import { eventsOf, versionState, type Change, type VersionState } from './events.ts';
import { enqueue, eventsWanted } from './store.ts';
import type { WebhookEvent } from './url.ts';
import { DeliveryWorker, type WorkerOptions } from './worker.ts';

export type WebhookOptions = WorkerOptions;

/** Queues the events of a change's `result`, in the change's own transaction `tx`, after the change. */
export type QueueEvents<T> = (tx: Queryable, result: T) => Promise<void>;

export class Webhooks {
  readonly worker: DeliveryWorker;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Database,
    readonly options: WebhookOptions,
    private readonly log: (line: string) => void,
  ) {
    this.worker = new DeliveryWorker(db, options, log);
  }

  /** Starts the worker: a delivery a stopped registry left pending is tried now. */
  start(): void {
    this.worker.kick();
  }

  /**
   * Runs `change` on `deployment`'s `version` (a new deployment's first publish: by `publisher`)
   * and queues the events it caused (`describe` says what it did, or undefined for nothing).
   * `change` calls the `queue` it is given inside its own transaction, after the change: the events
   * are committed with it or not at all, and the worker is woken once it committed. `queue` is
   * undefined when no webhook wants the deployment's events. A stored run is never refused because
   * an event could not be queued: the queueing is undone to a savepoint and the failure logged.
   */
  async around<T>(
    deployment: string,
    version: string,
    change: (queue: QueueEvents<T> | undefined) => Promise<T>,
    describe: (result: T) => Change | undefined,
    publisher?: string,
  ): Promise<T> {
    const wanted = await eventsWanted(this.db, deployment, publisher);
    if (wanted.size === 0) return change(undefined);
    const key = `${deployment}\n${version}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const mine = previous.then(async () => {
      const before = await versionState(this.db, deployment, version, wanted);
      let queued = 0;
      const result = await change(async (tx, done) => {
        const what = describe(done);
        if (what) queued = await this.queueIn(tx, what, before, wanted);
      });
      if (queued > 0) this.worker.kick();
      return result;
    });
    const settled = mine.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return mine;
  }

  /** Queues `done`'s events in `tx` (which sees the change); a failure is undone and logged, never thrown. */
  private async queueIn(
    tx: Queryable,
    done: Change,
    before: VersionState,
    wanted: ReadonlySet<WebhookEvent>,
  ): Promise<number> {
    // A failed statement aborts the whole transaction; the savepoint keeps the run's part of it.
    await tx.query('SAVEPOINT webhook_events');
    try {
      const after = await versionState(tx, done.run.deployment, done.run.version, wanted);
      const queued = await enqueue(tx, eventsOf(done, before, after, wanted));
      await tx.query('RELEASE SAVEPOINT webhook_events');
      return queued;
    } catch (error) {
      await tx.query('ROLLBACK TO SAVEPOINT webhook_events');
      this.log(`webhooks: the events of run ${done.run.id} could not be queued: ${(error as Error).message}`);
      return 0;
    }
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}
