// A QA team's own playwright.config.ts with the conformance rules beside its API tests: one
// `npx playwright test` runs both, with one exit code and the team's reporters. `--project api`
// runs the team's own tests alone; the conformance projects are named `conformance set-up`,
// `conformance HTTP/1.1` and `conformance HTTP/2` (`--project "conformance*"` selects them all).
// `--grep @AUTH-` selects rules by their id's tag (a bare `AUTH-` would also match the path of the
// installed package's spec files), `--shard 1/2` works as for any project, and `--list` counts
// the rules selected. The kit's own reports (verdict table, conformance.json, JUnit, HAR) come
// from conformanceReporter, listed first.
import { defineConfig } from '@playwright/test';
import { conformanceProjects, conformanceReporter } from 'tenant-auth-conformance/playwright';

export default defineConfig({
  reporter: [conformanceReporter({ outputDir: 'reports/conformance' }), ['html', { open: 'never' }]],
  projects: [
    { name: 'api', testDir: './tests/api' },
    // The deployment under test, described by a target file (or { baseUrl }, or nothing: the
    // embedded reference server); options as the `run` command's.
    ...conformanceProjects({
      target: { file: 'conformance-target.jsonc' },
      profile: 'strict',
      protocols: ['h1', 'h2'],
      maxRetries: 4,
      maxRps: 20,
    }),
  ],
});
