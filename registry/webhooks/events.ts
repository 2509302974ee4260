// The events of a change (a run published, a run yanked), derived from what the registry already
// decides, read before and after the change: the deciding run of the version (newestOfVersion,
// the one can-i-ship, the badge and the certified list go by) and the regressions `diff` finds
// against the version's baseline. Nothing here judges a run itself.
import { diffVersions, DiffQuestionError } from '../ask/diff.ts';
import type { Queryable } from '../database/database.ts';
import { liveRelease } from '../store/releases.ts';
import { newestOfVersion, type StoredRun } from '../store/runs.ts';
import { newEventId, type EventToSend } from './store.ts';
import type { WebhookEvent } from './url.ts';

export interface VersionState {
  /** The run that decides for the version (undefined: none, e.g. every run yanked). */
  deciding: StoredRun | undefined;
  /** The version the regressions are against, when there is one. */
  baseline: string | undefined;
  /** Each rule `diff` calls regressed from the baseline to this version, with its change. */
  regressed: Map<string, { level: string; from: string; to: string }>;
}

export type Change = { kind: 'published'; run: StoredRun } | { kind: 'yanked'; run: StoredRun };

/**
 * The baseline of a version: the live version (registry record-release) when it is another one,
 * else the version published just before it (by first run); none for the first version.
 */
export async function baselineOf(
  db: Queryable,
  deployment: string,
  version: string,
): Promise<string | undefined> {
  const live = await liveRelease(db, deployment);
  if (live && live.version !== version) return live.version;
  const [row] = await db.query<{ version: string }>(
    `SELECT version FROM runs WHERE deployment = $1 AND yanked_at IS NULL GROUP BY version
     HAVING min(id) < (SELECT min(id) FROM runs WHERE deployment = $1 AND version = $2)
     ORDER BY min(id) DESC LIMIT 1`,
    [deployment, version],
  );
  return row?.version;
}

export async function versionState(
  db: Queryable,
  deployment: string,
  version: string,
  wanted: ReadonlySet<WebhookEvent>,
): Promise<VersionState> {
  const deciding = await newestOfVersion(db, deployment, version);
  const regressed: VersionState['regressed'] = new Map();
  // diff reads every run of both versions: only when a webhook wants its answer.
  const baseline = wanted.has('rule.regressed') ? await baselineOf(db, deployment, version) : undefined;
  if (baseline !== undefined && deciding !== undefined) {
    try {
      for (const change of (await diffVersions(db, deployment, baseline, version)).regressed)
        regressed.set(change.ruleId, { level: change.level, from: change.from, to: change.to });
    } catch (error) {
      // A baseline whose every run is yanked regresses nothing.
      if (!(error instanceof DiffQuestionError)) throw error;
    }
  }
  return { deciding, baseline, regressed };
}

const runRef = (run: StoredRun | undefined): { id: number; verdict: string; startedAt: string } | null =>
  run ? { id: run.id, verdict: run.verdict, startedAt: run.startedAt } : null;

/** The events `change` caused, of those wanted, each with its JSON body. */
export function eventsOf(
  change: Change,
  before: VersionState,
  after: VersionState,
  wanted: ReadonlySet<WebhookEvent>,
  now: Date = new Date(),
): EventToSend[] {
  const { deployment, version } = change.run;
  const cause = { [change.kind]: { run: change.run.id, page: `/runs/${change.run.id}` } };
  const events: EventToSend[] = [];
  const add = (event: WebhookEvent, detail: Record<string, unknown>): void => {
    if (!wanted.has(event)) return;
    const eventId = newEventId();
    const body = JSON.stringify({
      id: eventId,
      event,
      occurredAt: now.toISOString(),
      deployment,
      version,
      ...detail,
    });
    events.push({ event, deployment, body, eventId });
  };
  if (change.kind === 'published')
    add('run.published', {
      run: {
        ...runRef(change.run),
        decides: after.deciding?.id === change.run.id,
        page: `/runs/${change.run.id}`,
      },
    });
  const from = before.deciding?.verdict ?? null;
  const to = after.deciding?.verdict ?? null;
  // A first run gives a version its verdict: run.published says so; a change is from one to another.
  if (from !== null && from !== to)
    add('version.verdict_changed', { from: runRef(before.deciding), to: runRef(after.deciding), cause });
  const regressed = [...after.regressed]
    .filter(([ruleId]) => !before.regressed.has(ruleId))
    .map(([ruleId, detail]) => ({ ruleId, ...detail }));
  if (regressed.length > 0 && after.baseline !== undefined)
    add('rule.regressed', { baseline: after.baseline, rules: regressed, cause });
  if (from === 'CONFORMANT' && to !== 'CONFORMANT')
    add('certified_version.lost', { was: runRef(before.deciding), now: runRef(after.deciding), cause });
  return events;
}
