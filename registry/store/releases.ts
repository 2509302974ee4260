// Releases: which version of a deployment is live, as its release pipeline records it
// (`registry record-release`). The newest record is the live version; every record is kept (a
// rollback is a new record of an older version) and audited. A release is of a version with a run
// in the registry: a live version the registry has no verdict for would show nothing true.
import type { Database, Queryable } from '../database/database.ts';
import { audit } from './audit.ts';
import { newestOfVersion, type StoredRun } from './runs.ts';

export interface Release {
  version: string;
  recordedBy: string;
  recordedAt: string;
}

export class ReleaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReleaseError';
  }
}

export function recordRelease(
  db: Database,
  deployment: string,
  version: string,
  actor: string,
): Promise<Release> {
  return db.transaction(async (tx) => {
    const runs = await tx.query('SELECT 1 FROM runs WHERE deployment = $1 AND version = $2 LIMIT 1', [
      deployment,
      version,
    ]);
    if (runs.length === 0)
      throw new ReleaseError(
        `No run of ${deployment} ${version} has been published: publish a run of the version before recording it live.`,
      );
    const [row] = await tx.query<{ recorded_at: Date | string }>(
      'INSERT INTO releases (deployment, version, recorded_by) VALUES ($1, $2, $3) RETURNING recorded_at',
      [deployment, version, actor],
    );
    await audit(tx, { actor, action: 'release', subject: `deployment ${deployment}`, detail: { version } });
    return { version, recordedBy: actor, recordedAt: new Date(row?.recorded_at ?? Date.now()).toISOString() };
  });
}

/** Every release of the deployment, newest first (the first is live). */
export async function releasesOf(db: Queryable, deployment: string, limit = 50): Promise<Release[]> {
  const rows = await db.query<{ version: string; recorded_by: string; recorded_at: Date | string }>(
    'SELECT version, recorded_by, recorded_at FROM releases WHERE deployment = $1 ORDER BY id DESC LIMIT $2',
    [deployment, limit],
  );
  return rows.map((row) => ({
    version: row.version,
    recordedBy: row.recorded_by,
    recordedAt: new Date(row.recorded_at).toISOString(),
  }));
}

export async function liveRelease(db: Queryable, deployment: string): Promise<Release | undefined> {
  return (await releasesOf(db, deployment, 1))[0];
}

/** The live release and the run that decides its version (the newest by start time not yanked). */
export async function liveOf(
  db: Queryable,
  deployment: string,
): Promise<{ release: Release; run?: StoredRun } | undefined> {
  const release = await liveRelease(db, deployment);
  if (!release) return undefined;
  const run = await newestOfVersion(db, deployment, release.version);
  return { release, ...(run ? { run } : {}) };
}
