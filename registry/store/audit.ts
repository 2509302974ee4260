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

/** The newest entries first, at most `limit`. */
export async function auditList(db: Queryable, limit: number): Promise<AuditEntry[]> {
  const rows = await db.query<{
    id: number;
    at: Date | string;
    actor: string;
    action: AuditEntry['action'];
    subject: string;
    reason: string | null;
    detail: Record<string, unknown>;
  }>('SELECT id, at, actor, action, subject, reason, detail FROM audit ORDER BY id DESC LIMIT $1', [limit]);
  return rows.map((row) => ({ ...row, at: new Date(row.at).toISOString() }));
}
