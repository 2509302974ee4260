// can-i-ship about the version that would replace the live one: yes only when the version may ship
// by itself (can-i-ship) and no rule regressed from the live version (diff from it: a rule any run
// of the live version passed, failing in every run of the new one). A release pipeline asks this
// before a deploy; the live version is the newest release recorded (registry record-release).
import type { Queryable } from '../database/database.ts';
import { liveRelease } from '../store/releases.ts';
import { canIShip, type ShipAnswer, type ShipQuestion } from './can-i-ship.ts';
import { DiffQuestionError, diffVersions } from './diff.ts';

export interface ReplacingAnswer extends ShipAnswer {
  live: { version: string; regressed: string[] };
}

/** No release of the deployment is recorded: there is no live version to compare with. */
export class NoLiveRelease extends Error {
  constructor(deployment: string) {
    super(
      `No release of "${deployment}" is recorded, so nothing is live to compare with: record one (registry record-release), or ask without --replacing-live.`,
    );
    this.name = 'NoLiveRelease';
  }
}

export async function canIShipReplacingLive(db: Queryable, question: ShipQuestion): Promise<ReplacingAnswer> {
  const live = await liveRelease(db, question.deployment);
  if (!live) throw new NoLiveRelease(question.deployment);
  const answer = await canIShip(db, question);
  let regressed: string[] = [];
  try {
    regressed = (await diffVersions(db, question.deployment, live.version, question.version)).regressed.map(
      (rule) => rule.ruleId,
    );
  } catch (error) {
    // No run of either version stands: can-i-ship's own answer says so for the new one; a live
    // version whose every run is yanked has nothing to regress from.
    if (!(error instanceof DiffQuestionError)) throw error;
  }
  const sentence =
    regressed.length > 0
      ? `It would replace the live ${live.version}, and ${regressed.length} rule${regressed.length > 1 ? 's' : ''} regressed from it: ${regressed.join(', ')} (registry diff --to ${question.version}).`
      : `It would replace the live ${live.version}: no rule regressed from it.`;
  if (answer.ship && regressed.length > 0)
    return {
      ...answer,
      ship: false,
      reason: `No: ${question.deployment} ${question.version} may ship by itself (${answer.reason.replace(/^Yes: /, '')}), but ${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`,
      live: { version: live.version, regressed },
    };
  return { ...answer, reason: `${answer.reason} ${sentence}`, live: { version: live.version, regressed } };
}
