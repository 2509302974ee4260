// The registry's pages in a real browser (Debian's Chromium over real TLS, as the panel's tests):
// the certified implementations with their badges, a deployment's history (verdict per version,
// a rule × version grid with an unstable rule), and a run's page linking its HTML report and its
// evidence; and a deployment of 10 000 versions, shown a page at a time with a working next link.
// REGISTRY_SCREENSHOT=docs/registry.png (npm run registry:screenshot) refreshes the
// picture of docs/registry.md.
import { test as base, expect } from '@playwright/test';
import { launchTrustingChromium } from '../../support/chromium.ts';
import { MUST_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { seedRuns } from '../support/seed.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';

const vendor = keyPair();
const flaky = MUST_RULES[2] ?? '';

const test = base.extend<object, { registry: TestRegistry }>({
  registry: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const registry = await startTestRegistry('embedded', { acme: [vendor.publicPem] });
      const token = registry.tokens.get('acme') ?? '';
      let hour = 0;
      const publish = async (
        deployment: string,
        version: string,
        shape: Parameters<typeof makeBundle>[0],
      ) => {
        const bundle = makeBundle({
          key: vendor.privateKey,
          startedAt: new Date(Date.UTC(2026, 10, 20, hour++)),
          ...shape,
        });
        const answer = await registry.publish(bundle, deployment, version, token);
        if (answer.status !== 201) throw new Error(`publish: ${JSON.stringify(answer.json)}`);
      };
      await publish('acme-prod', '1.0.0', {});
      await publish('acme-prod', '1.1.0', { failing: [MUST_RULES[0] ?? ''] });
      await publish('acme-prod', '1.2.0', {});
      await publish('acme-prod', '1.2.0', { failing: [flaky] });
      await publish('acme-prod', '1.3.0', {});
      await publish('acme-edge', '0.9.0', {
        profile: 'default',
        checked: ['HTTP/1.1'],
        offered: ['HTTP/1.1'],
      });
      await publish('acme-beta', '0.1.0', { failing: [MUST_RULES[0] ?? ''] });
      await use(registry);
      await registry.close();
      removeBundles();
    },
    { scope: 'worker' },
  ],
  browser: [
    async ({ registry }, use) => {
      const chromium = await launchTrustingChromium(registry.caPath);
      await use(chromium.browser);
      await chromium.dispose();
    },
    { scope: 'worker' },
  ],
});

test('the certified implementations: each deployment’s newest CONFORMANT version, with its badge', async ({
  page,
  registry,
}) => {
  await page.goto(`${registry.registry.url}/`);
  await expect(page.getByRole('heading', { name: 'Certified implementations' })).toBeVisible();
  const rows = page.locator('#certified tbody tr');
  await expect(rows).toHaveCount(2);
  const prod = rows.filter({ hasText: 'acme-prod' });
  await expect(prod.locator('td').nth(1)).toHaveText('1.3.0');
  await expect(prod.locator('td').nth(2)).toHaveText('strict');
  await expect(prod.locator('td').nth(3)).toHaveText('HTTP/1.1, HTTP/2');
  await expect(prod.locator('td').nth(5)).toContainText('sha256:');
  await expect(rows.filter({ hasText: 'acme-edge' }).locator('td').nth(3)).toHaveText('HTTP/1.1');
  // A deployment with no CONFORMANT run is not listed as certified.
  await expect(page.getByText('No CONFORMANT run published: acme-beta')).toBeVisible();
  // The badge is drawn (an SVG the browser decoded), and says the latest verdict with its profile.
  const badge = prod.getByRole('img', { name: 'badge of acme-prod' });
  await expect
    .poll(() => badge.evaluate((image: HTMLImageElement) => image.naturalWidth))
    .toBeGreaterThan(100);
  const svg = await registry.request('/badge/acme-prod.svg');
  expect(svg.headers.get('content-type')).toBe('image/svg+xml');
  expect(svg.text).toContain('CONFORMANT · strict · 2026-11-20');
});

test('a deployment’s history: the verdict per version and a rule × version grid that shows an unstable rule', async ({
  page,
  registry,
}, testInfo) => {
  await page.goto(`${registry.registry.url}/`);
  await page.getByRole('link', { name: 'acme-prod', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'acme-prod', level: 1 })).toBeVisible();
  const versions = page.locator('#versions tbody tr');
  await expect(versions).toHaveCount(4);
  await expect(versions.filter({ hasText: '1.1.0' })).toContainText('NOT CONFORMANT');
  await expect(versions.filter({ hasText: '1.2.0' }).getByRole('link')).toHaveCount(2);
  const grid = page.locator('#grid');
  await expect(grid.locator('thead th')).toHaveText(['Rule', '1.0.0', '1.1.0', '1.2.0', '1.3.0']);
  const flakyRow = grid.locator('tbody tr', { has: page.getByRole('cell', { name: flaky, exact: true }) });
  await expect(flakyRow.locator('td')).toHaveText([flaky, 'pass', 'pass', 'unstable: pass / fail', 'pass']);
  const failedRow = grid.locator('tbody tr', {
    has: page.getByRole('cell', { name: MUST_RULES[0] ?? '', exact: true }),
  });
  await expect(failedRow.locator('td').nth(2)).toHaveText('fail');
  const path = process.env.REGISTRY_SCREENSHOT ?? testInfo.outputPath('registry.png');
  await page.setViewportSize({ width: 1100, height: 700 });
  await page.screenshot({ path, fullPage: false });
});

test('a run’s page: its verdict and scope, its rules, and links to its HTML report and evidence', async ({
  page,
  registry,
}) => {
  await page.goto(`${registry.registry.url}/deployments/acme-prod`);
  await page
    .locator('#versions tbody tr', { hasText: '1.1.0' })
    .getByRole('link', { name: /run \d+: NOT CONFORMANT/ })
    .click();
  await expect(page.locator('#verdict')).toHaveText(
    'NOT CONFORMANT under the strict profile, over HTTP/1.1 and HTTP/2',
  );
  await expect(page.getByText('checked HTTP/1.1, HTTP/2 of HTTP/1.1, HTTP/2 offered')).toBeVisible();
  const rule = page.locator('#rules tbody tr', {
    has: page.getByRole('cell', { name: MUST_RULES[0] ?? '', exact: true }),
  });
  await expect(rule.locator('td')).toHaveText([MUST_RULES[0] ?? '', 'MUST', 'fail', 'fail', 'fail']);
  const evidence = await registry.request((await page.locator('#evidence').getAttribute('href')) ?? '');
  expect(evidence.status).toBe(200);
  expect(evidence.json).toHaveProperty('log');
  await page.locator('#report').click();
  // The published HTML report, served sandboxed (an origin of its own).
  await expect(page).toHaveURL(/\/runs\/\d+\/files\/conformance\.html$/);
  await expect(page.getByText('NOT CONFORMANT').first()).toBeVisible();
});

// Last in the file: it adds a deployment the tests above do not expect.
test('a deployment of 10 000 versions: the first page, and a next link that works, without script', async ({
  page,
  registry,
}) => {
  await seedRuns(registry.backend.db, { prefix: 'wide', deployments: 1, runs: 10_000 });
  await page.goto(`${registry.registry.url}/deployments/wide0`);
  const versions = page.locator('#versions tbody tr');
  await expect(versions).toHaveCount(50);
  await expect(versions.first().locator('td').first()).toHaveText('1.0.0');
  await expect(versions.last().locator('td').first()).toHaveText('1.0.49');
  await expect(page.locator('#grid thead th')).toHaveCount(51);
  await expect(page.locator('script')).toHaveCount(0);
  await page.locator('#next-page').first().click();
  await expect(page).toHaveURL(/\/deployments\/wide0\?cursor=/);
  await expect(versions.first().locator('td').first()).toHaveText('1.0.50');
  await expect(versions).toHaveCount(50);
  await expect(page.locator('#first-page').first()).toHaveAttribute('href', '/deployments/wide0');
  await expect(page.locator('script')).toHaveCount(0);
});
