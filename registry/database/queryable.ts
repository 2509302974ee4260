// The registry's one way to the database, whichever backend is behind it (database.ts opens
// them): kept apart from the opening code so that what serves a backend (embedded-host.ts) can
// name it without importing what opens it.
export interface Queryable {
  /** Runs one statement with `$1…` parameters (never interpolated) and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'server';
  /**
   * The lane of the reads a release waits on (can-i-ship, the badge): connections of their own on
   * a server, first in line on the embedded database, so that pages loading never hold them up.
   */
  readonly gate: Queryable;
  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
