// The teardown project of a team's config (conformance/run/projects.ts): revokes the keys the
// set-up project minted, after every rule project has run (minted-keys-revocation.ts).
import { untracedTest as test } from './untraced-test.ts';
import { revokeMintedKeys } from './minted-keys-revocation.ts';
import type { SuiteOptions } from './projects.ts';

// eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
test('conformance teardown: minted keys revoked', async ({}, testInfo) => {
  await revokeMintedKeys(testInfo.project.use as Partial<SuiteOptions>);
});
