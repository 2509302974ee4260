// The lists, one page at a time: the deployments (with each one's certified run) and a
// deployment's versions (with their runs). Each page is a keyset page — the rows after the last
// key of the page before — so an insert never repeats or skips a row of a listing under way, and
// each page costs the same however many runs are stored: every query here walks an index
// (migration 5) and stops after its page (tests/registry/store/read-plans.test.ts reads the plans).
import type { Queryable } from '../database/database.ts';
import { RUN_COLUMNS, runOf, type RunRow, type StoredRun } from './runs.ts';

export interface Page<Key> {
  /** The last key of this page, when a page follows it. */
  next: Key | undefined;
}

export interface DeploymentsPage extends Page<string> {
  /** The page's deployments, by name, each with its certified run when it has one. */
  deployments: { name: string; certified: StoredRun | undefined }[];
}

/**
 * A deployment's certified run: the newest (by start time) of its runs not yanked that is
 * CONFORMANT and the latest run not yanked of its version — so a version whose latest run failed
 * is not certified by an earlier pass, as can-i-ship decides, and a yanked run neither certifies
 * nor hides the run before it.
 */
const certifiedRunOf = (deployment: string): string => `SELECT ${RUN_COLUMNS} FROM runs r
  WHERE r.deployment = ${deployment} AND r.verdict = 'CONFORMANT' AND r.yanked_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM runs l WHERE l.deployment = r.deployment AND l.version = r.version
                    AND l.yanked_at IS NULL AND (l.started_at, l.id) > (r.started_at, r.id))
  ORDER BY r.started_at DESC, r.id DESC LIMIT 1`;

/** The deployments after `after` by name, at most `limit`, each with its certified run. */
export async function deploymentsPage(
  db: Queryable,
  { after, limit }: { after: string | undefined; limit: number },
): Promise<DeploymentsPage> {
  const rows = await db.query<Partial<RunRow> & { listed_name: string }>(
    `SELECT d.name AS listed_name, c.*
     FROM (SELECT name FROM deployments WHERE name > $1 ORDER BY name LIMIT $2) AS d
     LEFT JOIN LATERAL (${certifiedRunOf('d.name')}) AS c ON true
     ORDER BY d.name`,
    [after ?? '', limit + 1],
  );
  const listed = rows.slice(0, limit);
  return {
    deployments: listed.map((row) => ({
      name: row.listed_name,
      certified: row.id == null ? undefined : runOf(row as RunRow),
    })),
    next: rows.length > limit ? listed.at(-1)?.listed_name : undefined,
  };
}

export interface VersionsPage extends Page<number> {
  /** The page's versions, in order of first publication. */
  versions: string[];
  /** Every run of those versions, oldest first by start time. */
  runs: StoredRun[];
}

/**
 * A deployment's versions in order of first publication (a version's first run id, which no later
 * insert changes), those after the version whose first run is `after`, at most `limit`, with
 * every run of each.
 */
export async function versionsPage(
  db: Queryable,
  deployment: string,
  { after, limit }: { after: number | undefined; limit: number },
): Promise<VersionsPage> {
  const firsts = await db.query<{ id: number; version: string }>(
    `SELECT r.id, r.version FROM runs r
     WHERE r.deployment = $1 AND r.id > $2
       AND NOT EXISTS (SELECT 1 FROM runs e WHERE e.deployment = r.deployment AND e.version = r.version AND e.id < r.id)
     ORDER BY r.id LIMIT $3`,
    [deployment, after ?? 0, limit + 1],
  );
  const listed = firsts.slice(0, limit);
  const versions = listed.map((row) => row.version);
  const rows =
    versions.length === 0
      ? []
      : await db.query<RunRow>(
          `SELECT ${RUN_COLUMNS} FROM runs WHERE deployment = $1 AND version = ANY($2::text[]) ORDER BY started_at, id`,
          [deployment, versions],
        );
  return {
    versions,
    runs: rows.map(runOf),
    next: firsts.length > limit ? listed.at(-1)?.id : undefined,
  };
}
