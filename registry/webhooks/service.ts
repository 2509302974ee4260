// What the rest of the registry sees of webhooks: `around` wraps a change (a publish, a yank) to
// queue the events it caused, and the worker delivers them. With no webhook for the deployment a
// change costs one query. A change of one version waits for the one before it in this process, so
// that each reads the state the other left (two registries on one server may merge two changes).
import type { Database } from '../database/database.ts';
import { eventsOf, versionState, type Change } from './events.ts';
import { enqueue, eventsWanted } from './store.ts';
import { DeliveryWorker, type WorkerOptions } from './worker.ts';

export type WebhookOptions = WorkerOptions;

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
   * Runs `change` on `deployment`'s `version` (a new deployment's first publish: by `publisher`) and queues the events it caused (`describe` says what
   * it did, or undefined for nothing). The change's result is returned whatever happens to its
   * events: a stored run is never refused because an event could not be queued (that is logged).
   */
  async around<T>(
    deployment: string,
    version: string,
    change: () => Promise<T>,
    describe: (result: T) => Change | undefined,
    publisher?: string,
  ): Promise<T> {
    const wanted = await eventsWanted(this.db, deployment, publisher);
    if (wanted.size === 0) return change();
    const key = `${deployment}\n${version}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const mine = previous.then(async () => {
      const before = await versionState(this.db, deployment, version, wanted);
      const result = await change();
      const done = describe(result);
      if (done) {
        try {
          const after = await versionState(this.db, deployment, version, wanted);
          if ((await enqueue(this.db, eventsOf(done, before, after, wanted))) > 0) this.worker.kick();
        } catch (error) {
          this.log(
            `webhooks: the events of run ${done.run.id} could not be queued: ${(error as Error).message}`,
          );
        }
      }
      return result;
    });
    const settled = mine.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return mine;
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}
