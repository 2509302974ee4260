// A deployment's badge: the kit's own badge (conformance/attestation/badge.ts) drawn from the
// deployment's latest stored run not yanked — every stored run was VERIFIED on arrival — with its
// verdict, scope, profile and date, so a README that shows it always shows the latest result. Once
// a release is recorded, the badge is of what is live: the run that decides the live version.
import { renderBadge } from '../../conformance/attestation/badge.ts';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import type { Queryable } from '../database/database.ts';
import { RequestError } from '../http/respond.ts';
import { deploymentProblem } from '../publish/upload.ts';
import { liveOf } from '../store/releases.ts';
import { latestRun } from '../store/runs.ts';

export async function renderRegistryBadge(db: Queryable, deployment: string): Promise<string> {
  const problem = deploymentProblem(deployment);
  if (problem) throw new RequestError(404, 'no_such_deployment', problem);
  const live = await liveOf(db, deployment);
  if (live && !live.run)
    throw new RequestError(
      404,
      'no_such_run',
      `The live version of "${deployment}", ${live.release.version}, has no run that stands (every run of it is yanked).`,
    );
  const run = live?.run ?? (await latestRun(db, deployment));
  if (!run) throw new RequestError(404, 'no_such_deployment', `The registry has no run of "${deployment}".`);
  return renderBadge({
    verdict: run.verdict as ConformanceReport['verdict'],
    profile: run.profile as ConformanceReport['profile'],
    startedAt: run.startedAt,
    ...(run.scope ? { scope: run.scope as NonNullable<ConformanceReport['scope']> } : {}),
  });
}
