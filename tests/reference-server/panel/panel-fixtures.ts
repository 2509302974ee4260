// Playwright fixtures of the panel's browser tests: one reference server (with a data directory
// and an admin token) per worker, and Debian's Chromium trusting its CA. When the worker ends,
// the server's access log and every file the tests left in the output folder are searched for
// each key the panel showed: none may hold one.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test as base } from '@playwright/test';
import { startKeyManagementServer, type KeyManagementServer } from '../../support/key-management-client.ts';
import { launchTrustingChromium } from '../../support/chromium.ts';

/** The walk of the output folder is bounded: a test run leaves far fewer files than this. */
const MAX_ARTIFACT_FILES = 2_000;

export const test = base.extend<object, { km: KeyManagementServer }>({
  km: [
    // Playwright reads a fixture's dependencies from a destructuring pattern, even an empty one.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use, workerInfo) => {
      const km = await startKeyManagementServer();
      await use(km);
      // close() also proves that no key shown in the browser reached the server's access log.
      await km.close();
      const holding = filesHoldingAny(workerInfo.project.outputDir, km.handedOut);
      if (holding.length > 0)
        throw new Error(`Test artifacts hold a key the panel showed: ${holding.join(', ')}`);
    },
    { scope: 'worker' },
  ],
  browser: [
    async ({ km }, use) => {
      const chromium = await launchTrustingChromium(km.server.caPath);
      await use(chromium.browser);
      await chromium.dispose();
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';

function filesHoldingAny(directory: string, secrets: readonly string[]): string[] {
  if (!existsSync(directory) || secrets.length === 0) return [];
  const holding: string[] = [];
  const pending = [directory];
  let seen = 0;
  while (pending.length > 0 && seen < MAX_ARTIFACT_FILES) {
    const path = pending.pop() as string;
    seen++;
    if (statSync(path).isDirectory()) {
      pending.push(...readdirSync(path).map((name) => join(path, name)));
    } else if (secrets.some((secret) => readFileSync(path, 'latin1').includes(secret))) {
      holding.push(path);
    }
  }
  return holding;
}
