// Settings → API → API Keys in a real browser (Debian's Chromium over real TLS): sign in, create
// each kind of key, use the key shown against the API, revoke and rotate, and see that a member
// and an account without the feature have no such page. Assertions on a key's value are written so
// that a failure never prints the key.
import type { Page } from '@playwright/test';
import type { Environment } from '../../../reference-server/http/hosts.ts';
import { fixtureUser, type KeyManagementServer } from '../../support/key-management-client.ts';
import { expect, test } from './panel-fixtures.ts';

const KEY_FORMAT = { production: /^mbk_prod_[A-Za-z0-9]{32}$/, sandbox: /^mbk_dev_[A-Za-z0-9]{32}$/ };
const KEYS_PAGE = '/settings/api/keys';

async function signIn(
  page: Page,
  km: KeyManagementServer,
  tenant: string,
  role: 'admin' | 'member',
  environment: Environment = 'production',
): Promise<string> {
  const base = km.server.panelUrl(tenant, environment);
  const user = fixtureUser(km.fixtures, tenant, role);
  await page.goto(`${base}/`);
  await expect(page).toHaveURL(`${base}/sign-in`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${base}/settings`);
  return base;
}

/** Creates a key through the form and returns the secret the page shows once. */
async function createKey(
  page: Page,
  km: KeyManagementServer,
  name: string,
  type: 'Read Only' | 'Full Access' | 'Chosen permissions',
  permissions: string[] = [],
): Promise<string> {
  await page.getByLabel('Name').fill(name);
  await page.getByRole('radio', { name: type }).check();
  for (const permission of permissions) await page.getByRole('checkbox', { name: permission }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('heading', { name: `Key created: ${name}` })).toBeVisible();
  const secret = await page.locator('#new-key-secret').inputValue();
  km.handedOut.push(secret);
  return secret;
}

function row(page: Page, name: string) {
  return page.locator('tbody tr', { has: page.getByRole('cell', { name, exact: true }) });
}

test('an admin creates each kind of key; each works on the API as its type allows, and is shown once', async ({
  page,
  km,
}) => {
  const base = await signIn(page, km, 'acme', 'admin');
  await page.getByRole('link', { name: 'API Keys' }).click();
  await expect(page).toHaveURL(`${base}${KEYS_PAGE}`);
  await expect(page.getByText('Settings → API → API Keys')).toBeVisible();

  const readOnly = await createKey(page, km, 'Browser read only', 'Read Only');
  expect(KEY_FORMAT.production.test(readOnly), 'the Read Only key has the production format').toBe(true);
  expect((await km.customers('acme', 'production', readOnly)).status).toBe(200);

  const full = await createKey(page, km, 'Browser full access', 'Full Access');
  expect(KEY_FORMAT.production.test(full), 'the Full Access key has the production format').toBe(true);
  expect((await km.customers('acme', 'production', full)).status).toBe(200);

  const chosen = await createKey(page, km, 'Browser invoices', 'Chosen permissions', ['invoices:read']);
  expect(KEY_FORMAT.production.test(chosen), 'the chosen-permissions key has the production format').toBe(
    true,
  );
  const denied = await km.customers('acme', 'production', chosen);
  expect(denied.status).toBe(403);
  expect((denied.json as { error: { code: string } }).error.code).toBe('insufficient_permissions');

  // Afterwards only the prefix and the last four characters are shown, with the times.
  await page.goto(`${base}${KEYS_PAGE}`);
  const html = await page.content();
  for (const key of [readOnly, full, chosen]) expect(html.includes(key), 'a key is shown again').toBe(false);
  await expect(row(page, 'Browser full access').getByText(`mbk_prod_…${full.slice(-4)}`)).toBeVisible();
  await expect(row(page, 'Browser full access').getByRole('cell', { name: 'Never' })).toHaveCount(0);
  await expect(row(page, 'Browser full access').locator('time')).toHaveCount(2);
});

test('a development key is made on the sandbox panel and works on the sandbox API only', async ({
  page,
  km,
}) => {
  const base = await signIn(page, km, 'acme', 'admin', 'sandbox');
  await page.goto(`${base}${KEYS_PAGE}`);
  await expect(page.getByRole('heading', { name: 'Create a development key' })).toBeVisible();
  const key = await createKey(page, km, 'Browser sandbox', 'Read Only');
  expect(KEY_FORMAT.sandbox.test(key), 'the sandbox panel made a development key').toBe(true);
  expect((await km.customers('acme', 'sandbox', key)).status).toBe(200);
  expect((await km.customers('acme', 'production', key)).status).toBe(401);
});

test('the Copy button copies the shown key', async ({ page, km, context }) => {
  const base = await signIn(page, km, 'globex', 'admin');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await page.goto(`${base}${KEYS_PAGE}`);
  const key = await createKey(page, km, 'Browser copy', 'Read Only');
  await page.getByRole('button', { name: 'Copy' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied === key, 'the clipboard holds the shown key').toBe(true);
});

test('revoking a key in the panel makes the API reject it at once; rotating replaces it', async ({
  page,
  km,
}) => {
  const base = await signIn(page, km, 'acme', 'admin');
  await page.goto(`${base}${KEYS_PAGE}`);
  page.on('dialog', (dialog) => void dialog.accept());

  const revoked = await createKey(page, km, 'Browser to revoke', 'Full Access');
  expect((await km.customers('acme', 'production', revoked)).status).toBe(200);
  await row(page, 'Browser to revoke').getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByText('is revoked. The API rejects it from now on.')).toBeVisible();
  await expect(row(page, 'Browser to revoke').getByText('Revoked')).toBeVisible();
  const rejected = await km.customers('acme', 'production', revoked);
  expect(rejected.status).toBe(401);
  expect((rejected.json as { error: { code: string } }).error.code).toBe('invalid_api_key');

  const old = await createKey(page, km, 'Browser to rotate', 'Read Only');
  await row(page, 'Browser to rotate')
    .filter({ hasText: 'Active' })
    .getByRole('button', { name: 'Rotate' })
    .click();
  await expect(page.getByRole('heading', { name: 'Key rotated: Browser to rotate' })).toBeVisible();
  const fresh = await page.locator('#new-key-secret').inputValue();
  km.handedOut.push(fresh);
  expect(fresh !== old && KEY_FORMAT.production.test(fresh), 'rotation showed a new key').toBe(true);
  expect((await km.customers('acme', 'production', fresh)).status).toBe(200);
  expect((await km.customers('acme', 'production', old)).status).toBe(401);
});

test('a member sees no API Keys page: no link, and its URL answers 403', async ({ page, km }) => {
  const base = await signIn(page, km, 'acme', 'member');
  await expect(page.getByRole('heading', { name: 'Account' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'API Keys' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'API', exact: true })).toHaveCount(0);
  const response = await page.goto(`${base}${KEYS_PAGE}`);
  expect(response?.status()).toBe(403);
  await expect(page.getByRole('button', { name: 'Create key' })).toHaveCount(0);
});

test('an account whose feature is disabled has no API Keys page, even for its admin: 404', async ({
  page,
  km,
}) => {
  const base = await signIn(page, km, 'initech', 'admin');
  await expect(page.getByRole('link', { name: 'API Keys' })).toHaveCount(0);
  const response = await page.goto(`${base}${KEYS_PAGE}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('button', { name: 'Create key' })).toHaveCount(0);
});

test('screenshot of the API Keys page (no key shown in it)', async ({ page, km }, testInfo) => {
  // A key made by a program and used once, so that the picture shows a last-use time.
  const made = await km.admin('POST', '/tenants/acme/keys', {
    name: 'Billing integration',
    environment: 'production',
    access: 'custom',
    permissions: ['customers:read', 'invoices:read'],
  });
  const secret = (made.json as { secret: string }).secret;
  km.handedOut.push(secret);
  expect((await km.customers('acme', 'production', secret)).status).toBe(200);
  const base = await signIn(page, km, 'acme', 'admin');
  await page.goto(`${base}${KEYS_PAGE}`);
  await expect(page.locator('#new-key-secret')).toHaveCount(0);
  // PANEL_SCREENSHOT=docs/panel.png (npm run panel:screenshot) refreshes the README's picture;
  // otherwise the picture goes to the test's output folder only.
  const path = process.env.PANEL_SCREENSHOT ?? testInfo.outputPath('panel.png');
  await page.screenshot({ path, fullPage: true });
});
