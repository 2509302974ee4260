// The set-up project of a team's config (conformance/run/projects.ts): what global set-up does for
// the `run` command — the preflight, then the keys a target with `keyMinting` asks for — left in
// the run's state file for the rule workers. A failed preflight fails this test, and Playwright
// then runs none of the rule projects that depend on it.
import { test } from '@playwright/test';
import { mintKeys } from '../deployment/key-minting.ts';
import { runPreflight } from '../deployment/preflight.ts';
import { ENV } from '../env.ts';
import { runSettings } from '../settings.ts';
import { bindTarget } from './run-target.ts';
import { preflightSummary } from './global-setup.ts';
import { writeProjectState } from './project-state.ts';
import { embeddedInWorker, type SuiteOptions } from './projects.ts';

// eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
test('conformance set-up: preflight and key minting', async ({}, testInfo) => {
  const { declaredTarget, runEnvironment } = testInfo.project.use as Partial<SuiteOptions>;
  Object.assign(process.env, runEnvironment);
  if (!declaredTarget) throw new Error('No declaredTarget option: use conformanceProjects() in the config.');
  // The embedded reference is started by each rule worker: nothing to reach or mint here.
  if (embeddedInWorker()) return;
  const preflight = await runPreflight(bindTarget(declaredTarget), runSettings().requestTimeoutMs);
  const env: Record<string, string> = { [ENV.preflight]: JSON.stringify(preflight) };
  console.log(preflightSummary(preflight));
  if (!preflight.ok) {
    writeProjectState({ env, minted: [] });
    throw new Error(`SETUP ERROR: the preflight failed; no rule was run.\n${preflightSummary(preflight)}`);
  }
  let minted: Awaited<ReturnType<typeof mintKeys>> | undefined;
  if (declaredTarget.keyMinting) {
    const adminToken = process.env[declaredTarget.keyMinting.adminToken] ?? '';
    minted = await mintKeys(declaredTarget, adminToken, declaredTarget.caFile);
  }
  writeProjectState({ env: { ...env, ...minted?.env }, minted: [...(minted?.made ?? [])] });
});
