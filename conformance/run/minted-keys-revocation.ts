// What the teardown project (project-teardown.ts) does: revokes the keys the set-up project
// minted, under the run's settings as its project hands them (the `runSettings` option), like the
// set-up project and the rule workers. Without them its requests would take the defaults (a
// 10-second time limit, 4 retries), not the user's --request-timeout or --max-retries. Kept apart
// from the Playwright test that calls it, so that a unit test can run it.
import { revokeKeys } from '../deployment/key-minting.ts';
import { useRunSettings } from '../settings.ts';
import { readProjectState } from './project-state.ts';
import type { SuiteOptions } from './projects.ts';
import { setHandOvers, inputEnvironment } from '../env.ts';

/** Revokes the run's minted keys with the options of the teardown project (`testInfo.project.use`). */
export async function revokeMintedKeys(options: Partial<SuiteOptions>): Promise<void> {
  const { declaredTarget, runEnvironment, runSettings } = options;
  // Hand-overs, not settings: the run's state directory, where the minted keys are listed.
  setHandOvers(runEnvironment ?? {});
  // For the request layer of the revocations, which reads them with runSettings(). Without the
  // option (a config of its own making), the defaults: revoking the keys matters more than failing.
  useRunSettings(runSettings);
  const state = readProjectState();
  if (!declaredTarget?.keyMinting || !state || state.minted.length === 0) return;
  const adminToken = inputEnvironment()[declaredTarget.keyMinting.adminToken] ?? '';
  await revokeKeys(declaredTarget, adminToken, declaredTarget.caFile, state.minted);
}
