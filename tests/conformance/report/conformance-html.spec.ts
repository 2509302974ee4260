// conformance.html in a real browser (Debian's Chromium, as the panel's tests use): it renders
// the verdict and the evidence, the outcome and level filters work, it loads nothing but itself
// and logs no error. REPORT_SCREENSHOT=docs/conformance-report.png (npm run report:screenshot)
// refreshes the README's picture.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, expect, test, type Browser } from '@playwright/test';
import { REPORT_FILES, writeReports } from '../../../conformance/report/write-reports.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../support/chromium.ts';
import { sampleRun } from './sample-run.ts';
import { SAMPLE_FAILING_RULE } from '../../support/sample-failure.ts';

let browser: Browser;
test.beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});
test.afterAll(async () => {
  await browser.close();
});

// Playwright reads a test's fixtures from a destructuring pattern, even an empty one.
// eslint-disable-next-line no-empty-pattern
test('conformance.html renders, filters by outcome and level, loads nothing else and logs no error', async ({}, testInfo) => {
  const { report, exchanges } = sampleRun();
  const directory = testInfo.outputPath('reports');
  writeReports(report, { exchanges }, directory);
  const url = pathToFileURL(join(directory, REPORT_FILES.html)).href;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems: string[] = [];
  const requested: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(url);

  await expect(page.locator('#verdict')).toHaveText('NOT CONFORMANT');
  const banner = page.getByRole('banner');
  for (const text of [
    'staging',
    'default',
    `${report.suite.name} ${report.suite.version}`,
    '2026-03-02 09:15:00Z',
  ])
    await expect(banner).toContainText(text);
  await expect(page.locator('[data-count="MUST-fail"]')).toHaveText('1');
  await expect(page.locator('[data-count="HTTP-warning"]')).toHaveText('1');

  const rows = page.locator('#rule-table tbody tr');
  const shown = page.locator('#shown');
  await expect(rows).toHaveCount(report.rules.length);
  // What needs action leads: the failure first, passes folded until asked for.
  await expect(rows.first()).toHaveAttribute('data-rule', 'AUTH-QUOTED-KEY-REJECTED');
  await expect(rows.first().locator('.per-protocol')).toHaveText('HTTP/1.1 FAIL');
  await expect(shown).toHaveText(`4 of ${report.rules.length} rules shown`);
  await expect(rows.filter({ visible: true })).toHaveCount(4);
  await page.getByRole('checkbox', { name: /pass/ }).check();
  await expect(shown).toHaveText(`${report.rules.length} of ${report.rules.length} rules shown`);
  await page.getByRole('checkbox', { name: /pass/ }).uncheck();
  await expect(banner).toContainText('checked over HTTP/1.1');
  await expect(page.locator('#certificates')).not.toHaveAttribute('open');
  await page.getByRole('checkbox', { name: 'HTTP' }).uncheck();
  await expect(shown).toHaveText(`3 of ${report.rules.length} rules shown`);
  await expect(page.locator('#rule-KEY-INVALID-401')).toBeHidden();
  await page.getByRole('checkbox', { name: 'HTTP' }).check();
  await expect(page.locator('#rule-KEY-INVALID-401')).toBeVisible();

  const failure = page.locator(`#rule-${SAMPLE_FAILING_RULE}`);
  await expect(failure).toBeVisible();
  await expect(failure.locator('.expected')).toContainText('expected a rejection (4xx), got 200');
  await expect(failure.locator('.headers').first()).toContainText('Bearer "$STAGING_FULL_ACCESS_KEY"');
  await expect(failure.locator('pre.curl')).toContainText(
    `--header "Authorization: Bearer \\"$STAGING_FULL_ACCESS_KEY\\""`,
  );
  await expect(failure.locator('.har')).toContainText('exchanges.har: entry 2');

  const path = process.env.REPORT_SCREENSHOT ?? testInfo.outputPath('conformance-report.png');
  await page.screenshot({ path, fullPage: true });
  expect(problems).toEqual([]);
  expect(requested).toEqual([url]);
});

// eslint-disable-next-line no-empty-pattern
test('exchanges.har is read by a HAR consumer: Chromium answered from it through routeFromHAR', async ({}, testInfo) => {
  const { report, exchanges } = sampleRun();
  const directory = testInfo.outputPath('reports');
  writeReports(report, { exchanges }, directory);
  const context = await browser.newContext();
  await context.routeFromHAR(join(directory, REPORT_FILES.har), { notFound: 'abort' });
  const page = await context.newPage();
  // No server listens there: the answer can only come from the HAR.
  const response = await page.goto(`${report.target.baseUrl}/customers`);
  expect([200, 400, 401]).toContain(response?.status());
  expect(await response?.text()).toMatch(/"object":"list"|"error":/);
  await context.close();
});
