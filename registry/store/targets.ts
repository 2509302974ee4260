// A deployment is bound to its target: the base URL its runs checked and the other tenant's host
// (where the isolation rules looked). A run of another target would mix two systems in one
// history, grid and diff; it is refused unless its publisher says the target moved, and each move
// is kept (from, to, who, which run) and shown in the history.
import type { Queryable } from '../database/database.ts';

export interface Target {
  baseUrl: string;
  /** The other tenant's host, when the run recorded one (its certificate). */
  otherTenant: string | null;
}

export interface TargetMove {
  from: Target;
  to: Target;
  publisher: string;
  runId: number;
  movedAt: string;
}

/** The run checked another target than the one its deployment is bound to: nothing was stored. */
export class TargetChangedError extends Error {
  constructor(
    readonly deployment: string,
    readonly bound: Target,
    readonly given: Target,
  ) {
    super(
      `The deployment "${deployment}" is bound to the target ${targetText(bound)}; this run checked ${targetText(given)}. If the deployment moved, publish again with --target-moved ("targetMoved": true): the move is kept in its history. Otherwise publish it under another deployment name. Nothing was stored.`,
    );
    this.name = 'TargetChangedError';
  }
}

export function targetText(target: Target): string {
  return `${target.baseUrl} (other tenant: ${target.otherTenant ?? 'not recorded'})`;
}

const same = (a: Target, b: Target): boolean => a.baseUrl === b.baseUrl && a.otherTenant === b.otherTenant;

/**
 * Binds the deployment to `given` at its first run, and checks every later one against it, inside
 * the publish's transaction (the row is locked: two publishes of two targets cannot both bind).
 * Returns the target it moved from, when the publisher said the target moved and it did.
 */
export async function bindTarget(
  tx: Queryable,
  deployment: string,
  given: Target,
  targetMoved: boolean,
): Promise<Target | undefined> {
  const [row] = await tx.query<{ base_url: string | null; other_tenant: string | null }>(
    'SELECT base_url, other_tenant FROM deployments WHERE name = $1 FOR UPDATE',
    [deployment],
  );
  const bound = row?.base_url != null ? { baseUrl: row.base_url, otherTenant: row.other_tenant } : undefined;
  if (bound !== undefined && same(bound, given)) return undefined;
  // A binding whose other tenant was never recorded (runs of before migration 4, or of a run that
  // checked none) learns it from the first run that records one, on the same base URL: that adds
  // what was unknown, it is not a move, and refusing it would refuse every run after an upgrade.
  if (bound !== undefined && bound.baseUrl === given.baseUrl && bound.otherTenant === null) {
    await tx.query('UPDATE deployments SET other_tenant = $2 WHERE name = $1', [
      deployment,
      given.otherTenant,
    ]);
    return undefined;
  }
  if (bound !== undefined && !targetMoved) throw new TargetChangedError(deployment, bound, given);
  await tx.query('UPDATE deployments SET base_url = $2, other_tenant = $3 WHERE name = $1', [
    deployment,
    given.baseUrl,
    given.otherTenant,
  ]);
  return bound;
}

export async function recordMove(
  tx: Queryable,
  deployment: string,
  from: Target,
  to: Target,
  publisher: string,
  runId: number,
): Promise<void> {
  await tx.query(
    `INSERT INTO target_moves (deployment, from_base_url, from_other_tenant, to_base_url, to_other_tenant, publisher, run_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [deployment, from.baseUrl, from.otherTenant, to.baseUrl, to.otherTenant, publisher, runId],
  );
}

/** The deployment's bound target, and every move, oldest first. */
export async function targetOf(
  db: Queryable,
  deployment: string,
): Promise<{ target: Target | undefined; moves: TargetMove[] }> {
  const [row] = await db.query<{ base_url: string | null; other_tenant: string | null }>(
    'SELECT base_url, other_tenant FROM deployments WHERE name = $1',
    [deployment],
  );
  const moves = await db.query<{
    from_base_url: string;
    from_other_tenant: string | null;
    to_base_url: string;
    to_other_tenant: string | null;
    publisher: string;
    run_id: number;
    moved_at: Date | string;
  }>(
    'SELECT from_base_url, from_other_tenant, to_base_url, to_other_tenant, publisher, run_id, moved_at FROM target_moves WHERE deployment = $1 ORDER BY id',
    [deployment],
  );
  return {
    target: row?.base_url != null ? { baseUrl: row.base_url, otherTenant: row.other_tenant } : undefined,
    moves: moves.map((move) => ({
      from: { baseUrl: move.from_base_url, otherTenant: move.from_other_tenant },
      to: { baseUrl: move.to_base_url, otherTenant: move.to_other_tenant },
      publisher: move.publisher,
      runId: move.run_id,
      movedAt: new Date(move.moved_at).toISOString(),
    })),
  };
}
