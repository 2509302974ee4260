// The audit list: every operation that changes what the registry shows or keeps without a publish
// (a yank, a retention pass, a release recorded) is one row — who, when, what, on which subject and
// why — written in the same transaction as the change, so no change is without its row.
import type { Queryable } from '../database/database.ts';

export interface AuditEntry {
  id: number;
  at: string;
  /** The publisher (or operator) whose token asked for the change. */
  actor: string;
  action: 'yank' | 'retention' | 'release';
  /** What it was done to: `run 12`, `deployment shop`. */
  subject: string;
  reason: string | null;
  detail: Record<string, unknown>;
}

export async function audit(
  tx: Queryable,
  entry: Pick<AuditEntry, 'actor' | 'action' | 'subject'> & {
    reason?: string;
    detail?: Record<string, unknown>;
  },
): Promise<number> {
  const [row] = await tx.query<{ id: number }>(
    'INSERT INTO audit (actor, action, subject, reason, detail) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [entry.actor, entry.action, entry.subject, entry.reason ?? null, JSON.stringify(entry.detail ?? {})],
  );
  if (!row) throw new Error('the audit entry was not inserted');
  return row.id;
}

/**
 * The newest entries first, those older than entry `after` (a keyset page: an entry written while
 * a reader pages is on no later page, and none is repeated or skipped), at most `limit`; `next` is
 * the last entry's id when more follow.
 */
export async function auditList(
  db: Queryable,
  { after, limit }: { after: number | undefined; limit: number },
): Promise<{ entries: AuditEntry[]; next: number | undefined }> {
  const rows = await db.query<{
    id: number;
    at: Date | string;
    actor: string;
    action: AuditEntry['action'];
    subject: string;
    reason: string | null;
    detail: Record<string, unknown>;
  }>(
    'SELECT id, at, actor, action, subject, reason, detail FROM audit WHERE id < $1 ORDER BY id DESC LIMIT $2',
    [after ?? 2_147_483_647, limit + 1],
  );
  const entries = rows.slice(0, limit).map((row) => ({ ...row, at: new Date(row.at).toISOString() }));
  return { entries, next: rows.length > limit ? entries.at(-1)?.id : undefined };
}
