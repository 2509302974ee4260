// The browser tests: the panel's (tests/reference-server/panel/*.spec.ts), Debian's Chromium against a
// reference server that each worker starts itself, and conformance.html's
// (tests/conformance/report/*.spec.ts).
// Separate from playwright.config.ts, the conformance run.
//   npm run test:panel                                  run them
//   npm run panel:screenshot                            also refresh docs/panel.png
//   npm run report:screenshot                           also refresh docs/conformance-report.png
import { defineConfig } from '@playwright/test';

// On a failure Playwright writes the page's accessibility snapshot (input values included, so a
// new key) to error-context.md; this variable turns that off. Workers inherit it.
process.env.PLAYWRIGHT_NO_COPY_PROMPT = '1';

export default defineConfig({
  testDir: './tests',
  testMatch: [
    'reference-server/panel/**/*.spec.ts',
    'conformance/report/**/*.spec.ts',
    'registry/**/*.spec.ts',
  ],
  forbidOnly: !!process.env.CI,
  retries: 0,
  // One server and one browser serve every test of the file, in order.
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: 'test-results/panel',
  use: {
    viewport: { width: 1280, height: 800 },
    // Pages show new keys: traces, videos and failure screenshots would keep them. Never recorded.
    trace: 'off',
    screenshot: 'off',
    video: 'off',
  },
});
