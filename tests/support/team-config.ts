// A team's own Playwright config for the kit's rules, written inside the repository (so that it
// resolves @playwright/test as a team's would) and run by Playwright itself: what the tests of
// conformanceProjects and conformanceReporter in a team's config share.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './conformance-run.ts';
import { compiledModule } from './compiled-kit.ts';

/** The Playwright command of the repository's own installation. */
export const PLAYWRIGHT = join(REPO_ROOT, 'node_modules', '.bin', 'playwright');

export interface TeamConfig {
  /** The team's folder (under reports/ of the repository): remove it when done. */
  work: string;
  /** Where conformanceReporter writes the kit's reports. */
  reports: string;
  /** The config file, for `playwright test --config`. */
  config: string;
}

/**
 * Writes a team's config in a new folder named after `prefix`: the kit's reporter writing to
 * `reports`, one worker, and `projects` (source text inside the config's `projects: [...]`, which
 * may call conformanceProjects).
 */
export function writeTeamConfig(prefix: string, projects: string): TeamConfig {
  mkdirSync(join(REPO_ROOT, 'reports'), { recursive: true });
  const work = mkdtempSync(join(REPO_ROOT, 'reports', `${prefix}-`));
  const reports = join(work, 'conformance');
  // The kit's Playwright entry point as the package exports it (compiled), as a team imports it.
  const library = relative(work, compiledModule('library/playwright'));
  const config = join(work, 'playwright.config.ts');
  writeFileSync(
    config,
    `import { defineConfig } from '@playwright/test';
import { conformanceProjects, conformanceReporter } from '${library}';

export default defineConfig({
  reporter: [conformanceReporter({ outputDir: ${JSON.stringify(reports)} })],
  outputDir: ${JSON.stringify(join(work, 'test-results'))},
  workers: 1,
  projects: [${projects}],
});
`,
  );
  return { work, reports, config };
}
