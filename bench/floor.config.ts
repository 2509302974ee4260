// The suite's own Playwright config (playwright.config.ts) — its set-up project (the embedded
// server started for the preflight, the preflight), the same reporters and workers — with one
// empty spec instead of the rules: what a conformance run costs before any rule (bench/README.md).
// Its relative paths are the repository root's, so they are resolved from there.
import { resolve } from 'node:path';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import suite from '../playwright.config.ts';
import { kitProjectRole } from '../conformance/run/projects.ts';

const ROOT = resolve(import.meta.dirname, '..');
const fromRoot = (path: string): string => (path.startsWith('.') ? resolve(ROOT, path) : path);
const FLOOR = resolve(import.meta.dirname, 'floor');

export default defineConfig({
  ...suite,
  testDir: FLOOR,
  reporter: (suite.reporter as ReporterDescription[]).map(
    ([name, options]) => [fromRoot(name), options] as ReporterDescription,
  ),
  // The set-up project as it is; each rule project runs the empty spec instead of the rules.
  projects: suite.projects?.map((project) =>
    kitProjectRole(project) === undefined ? { ...project, testDir: FLOOR } : project,
  ),
});
