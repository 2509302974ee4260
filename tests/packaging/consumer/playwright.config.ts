// A QA team's own config: its API tests, and the conformance projects beside them. FAULTY_TARGET
// names a target file (a faulty deployment) instead of the embedded reference.
import { defineConfig } from '@playwright/test';
import { conformanceProjects, conformanceReporter } from 'tenant-auth-conformance/playwright';

const faulty = process.env['FAULTY_TARGET'];

export default defineConfig({
  reporter: [
    conformanceReporter({ outputDir: 'conformance-reports' }),
    ['json', { outputFile: 'results.json' }],
  ],
  projects: [
    { name: 'api', testDir: './api-tests' },
    ...conformanceProjects({
      ...(faulty ? { target: { file: faulty } } : {}),
      protocols: ['h1'],
      maxRetries: 2,
    }),
  ],
});
