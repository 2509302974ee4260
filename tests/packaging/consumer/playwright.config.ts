// A QA team's own config: its API tests, and the conformance projects beside them. FAULTY_TARGET
// names a target file (a faulty deployment) instead of the embedded reference; URL_TARGET a base
// URL (with URL_TARGET_CA, the CA to trust), its keys from CONFORMANCE_KEY_*; FAIL_ON_INCOMPLETE=1
// asks for failOnIncomplete; BLOB_REPORT=1 adds Playwright's blob reporter (blob-report/), for a
// sharded run that is merged afterwards.
import { defineConfig } from '@playwright/test';
import { conformanceProjects, conformanceReporter } from 'tenant-auth-conformance/playwright';

const faulty = process.env['FAULTY_TARGET'];
const byUrl = process.env['URL_TARGET'];
const byUrlCa = process.env['URL_TARGET_CA'];

export default defineConfig({
  reporter: [
    conformanceReporter({ outputDir: 'conformance-reports' }),
    ['json', { outputFile: 'results.json' }],
    ...(process.env['BLOB_REPORT'] === '1' ? [['blob'] as const] : []),
  ],
  projects: [
    { name: 'api', testDir: './api-tests' },
    ...conformanceProjects({
      ...(faulty ? { target: { file: faulty } } : {}),
      ...(byUrl ? { target: { baseUrl: byUrl, ...(byUrlCa ? { caFile: byUrlCa } : {}) } } : {}),
      protocols: ['h1'],
      maxRetries: 2,
      maxListPages: 5,
      maxListRecords: 500,
      failOnIncomplete: process.env['FAIL_ON_INCOMPLETE'] === '1',
    }),
  ],
});
