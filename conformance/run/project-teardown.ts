// The teardown project of a team's config (conformance/run/projects.ts): revokes the keys the
// set-up project minted, after every rule project has run.
import { test } from '@playwright/test';
import { revokeKeys } from '../deployment/key-minting.ts';
import { readProjectState } from './project-state.ts';
import type { SuiteOptions } from './projects.ts';

// eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
test('conformance teardown: minted keys revoked', async ({}, testInfo) => {
  const { declaredTarget, runEnvironment } = testInfo.project.use as Partial<SuiteOptions>;
  // Hand-overs, not settings: the run's state directory, where the minted keys are listed.
  Object.assign(process.env, runEnvironment);
  const state = readProjectState();
  if (!declaredTarget?.keyMinting || !state || state.minted.length === 0) return;
  const adminToken = process.env[declaredTarget.keyMinting.adminToken] ?? '';
  await revokeKeys(declaredTarget, adminToken, declaredTarget.caFile, state.minted);
});
