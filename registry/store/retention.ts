// The retention policy for bundle files: keep the files of the newest N runs of each deployment,
// and/or of the runs started within the last D days; the files of the others go. The run rows,
// their rule outcomes and verdicts stay (every answer is a query over them), and so do the files of
// every run that can decide a version: for each version, the newest run not yanked of each kind of
// coverage (profile, protocols checked, rules selected, partial) — whichever question can-i-ship is
// asked, the run that answers it keeps its evidence. Each pass is audited with the runs it touched.
import type { Database } from '../database/database.ts';
import { audit } from './audit.ts';
import type { BlobStore } from './blobs.ts';

export interface RetentionPolicy {
  /** Keep the files of the newest N runs of each deployment (by start time). */
  keepLast?: number;
  /** Keep the files of runs started within this many days of `now`. */
  maxAgeDays?: number;
}

export interface RetentionResult {
  /** The runs whose files were (or, dry, would be) removed, oldest first. */
  runs: number[];
  /** Their files' size in bytes. */
  bytes: number;
  /** The audit entry of the pass (none for a dry run or a pass that removed nothing). */
  auditId?: number;
}

export function policyProblem(policy: RetentionPolicy): string | undefined {
  const { keepLast, maxAgeDays } = policy;
  if (keepLast === undefined && maxAgeDays === undefined)
    return 'Give a policy: --keep-last N (runs per deployment) and/or --max-age-days D.';
  if (keepLast !== undefined && (!Number.isInteger(keepLast) || keepLast < 1 || keepLast > 1_000_000))
    return `keepLast must be a whole number from 1 to 1000000; got ${String(keepLast).slice(0, 20)}.`;
  if (maxAgeDays !== undefined && (!Number.isInteger(maxAgeDays) || maxAgeDays < 1 || maxAgeDays > 36_500))
    return `maxAgeDays must be a whole number of days from 1 to 36500; got ${String(maxAgeDays).slice(0, 20)}.`;
  return undefined;
}

/** The runs whose files the policy removes: beyond the newest N, or older than the age, and not deciding. */
const CANDIDATES = `
  WITH ranked AS (
    SELECT id, started_at, files_removed_at,
      row_number() OVER (PARTITION BY deployment ORDER BY started_at DESC, id DESC) AS recency,
      yanked_at IS NULL AND row_number() OVER (
        PARTITION BY deployment, version, profile, protocols_checked, rules_selected, partial, yanked_at IS NULL
        ORDER BY started_at DESC, id DESC) = 1 AS decides
    FROM runs
  )
  SELECT r.id, r.bundle_sha256, b.size_bytes FROM ranked k JOIN runs r ON r.id = k.id
    JOIN bundles b ON b.sha256 = r.bundle_sha256
  WHERE k.files_removed_at IS NULL AND NOT k.decides
    AND (($1::int IS NOT NULL AND k.recency > $1) OR ($2::timestamptz IS NOT NULL AND k.started_at < $2))
  ORDER BY k.started_at, k.id`;

export async function applyRetention(
  db: Database,
  policy: RetentionPolicy,
  actor: string,
  {
    dryRun = false,
    now = new Date(),
    blobs,
  }: {
    dryRun?: boolean;
    now?: Date;
    /** The registry's blob store: a blob whose last row goes is deleted after the pass commits. */
    blobs?: BlobStore;
  } = {},
): Promise<RetentionResult> {
  const problem = policyProblem(policy);
  if (problem) throw new RangeError(problem);
  const cutoff =
    policy.maxAgeDays === undefined ? null : new Date(now.getTime() - policy.maxAgeDays * 86_400_000);
  const orphans: string[] = [];
  const result = await db.transaction(async (tx) => {
    // One pass at a time: two passes at once would each audit the other's runs.
    await tx.query('LOCK TABLE runs IN SHARE ROW EXCLUSIVE MODE');
    const rows = await tx.query<{ id: number; bundle_sha256: string; size_bytes: string | number }>(
      CANDIDATES,
      [policy.keepLast ?? null, cutoff?.toISOString() ?? null],
    );
    const runs = rows.map((row) => row.id);
    const bytes = rows.reduce((total, row) => total + Number(row.size_bytes), 0);
    if (dryRun || runs.length === 0) return { runs, bytes };
    const removed = await tx.query<{ sha256: string; in_blob: boolean }>(
      'DELETE FROM bundle_files WHERE bundle_sha256 = ANY($1::text[]) RETURNING sha256, in_blob',
      [rows.map((row) => row.bundle_sha256)],
    );
    orphans.push(...removed.filter((row) => row.in_blob).map((row) => row.sha256));
    await tx.query('UPDATE runs SET files_removed_at = clock_timestamp() WHERE id = ANY($1::int[])', [runs]);
    const auditId = await audit(tx, {
      actor,
      action: 'retention',
      subject: `${runs.length} run${runs.length > 1 ? 's' : ''}`,
      detail: { policy, runs, bytes },
    });
    return { runs, bytes, auditId };
  });
  // After the commit: another bundle may share a blob (its name is its content), so a blob goes only
  // when no row references it (BlobStore.sweep). A crash before this leaves them to the next start.
  if (blobs && orphans.length > 0) await blobs.sweep(db, orphans);
  return result;
}
