// A yank withdraws a run that was published by mistake or forged: the run and its files are kept and
// shown (marked yanked, with who, when and why), and it decides nothing from then on — not
// can-i-ship, not diff, not the badge, not the certified list. A yank is audited, in the same
// transaction, and is never undone silently: there is no un-yank (publish a new run instead).
import type { Database, Queryable } from '../database/database.ts';
import { audit } from './audit.ts';
import { runById, type StoredRun } from './runs.ts';

/** Why a yank did not happen: no such run, or yanked already. */
export class YankError extends Error {
  constructor(
    readonly kind: 'no_such_run' | 'already_yanked',
    message: string,
  ) {
    super(message);
    this.name = 'YankError';
  }
}

/** The longest reason kept: a sentence, not a document. */
export const MAX_REASON_LENGTH = 500;

export function reasonProblem(reason: unknown): string | undefined {
  if (typeof reason !== 'string' || reason.trim() === '')
    return 'Give the reason (--reason "…"): the audit list keeps why a run was yanked.';
  if (reason.length > MAX_REASON_LENGTH)
    return `The reason is ${reason.length} characters; keep it to ${MAX_REASON_LENGTH}.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(reason))
    return 'The reason holds a control character (a NUL, a line break…): give one line of text.';
  return undefined;
}

/**
 * Yanks run `id` as `actor` (who may is the caller's to check); returns the run as yanked.
 * `onYanked` runs in the same transaction, after the yank (a webhook's events are queued so).
 */
export function yankRun(
  db: Database,
  id: number,
  actor: string,
  reason: string,
  onYanked?: (tx: Queryable, yanked: StoredRun) => Promise<void>,
): Promise<StoredRun> {
  return db.transaction(async (tx) => {
    const [locked] = await tx.query('SELECT id FROM runs WHERE id = $1 FOR UPDATE', [id]);
    const run = locked ? await runById(tx, id) : undefined;
    if (!run) throw new YankError('no_such_run', `The registry has no run ${id}.`);
    if (run.yanked)
      throw new YankError(
        'already_yanked',
        `Run ${id} was yanked already, at ${run.yanked.at} by ${run.yanked.by}: "${run.yanked.reason}". Nothing was changed.`,
      );
    await tx.query(
      'UPDATE runs SET yanked_at = clock_timestamp(), yanked_by = $2, yank_reason = $3 WHERE id = $1',
      [id, actor, reason],
    );
    await audit(tx, {
      actor,
      action: 'yank',
      subject: `run ${id}`,
      reason,
      detail: { runId: id, deployment: run.deployment, version: run.version, verdict: run.verdict },
    });
    const yanked = await runById(tx, id);
    if (!yanked) throw new Error(`run ${id} vanished in its own transaction`);
    await onYanked?.(tx, yanked);
    return yanked;
  });
}
