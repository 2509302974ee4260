// The suite's own Playwright config (playwright.config.ts) — the embedded server through
// webServer, the preflight in global set-up, the same reporters and workers — with one empty
// spec instead of the suite: what a conformance run costs before any rule (bench/README.md).
// Its relative paths are the repository root's, so they are resolved from there.
import { resolve } from 'node:path';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import suite from '../playwright.config.ts';

const ROOT = resolve(import.meta.dirname, '..');
const fromRoot = (path: string): string => (path.startsWith('.') ? resolve(ROOT, path) : path);

export default defineConfig({
  ...suite,
  testDir: resolve(import.meta.dirname, 'floor'),
  globalSetup: fromRoot(String(suite.globalSetup)),
  reporter: (suite.reporter as ReporterDescription[]).map(
    ([name, options]) => [fromRoot(name), options] as ReporterDescription,
  ),
  webServer: suite.webServer && { ...suite.webServer, cwd: ROOT },
});
