// The tenant panel over real TLS, as a browser would use it: sign-in and its cookie, CSRF on
// every change, Settings → API → API Keys only for an admin of an account with the feature, and
// each change visible at once on the tenant API.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiKeyList } from '../../../schemas/generated/api-key-management.ts';
import {
  csrfTokenIn,
  fixtureUser,
  panelHost,
  PanelClient,
  keyManagementServerPerSuite,
  type Reply,
} from '../../support/key-management-client.ts';

const SECRET_IN_PAGE = /value="(mbk_(?:prod|dev)_[A-Za-z0-9]{32})"/g;
const KEYS_PAGE = '/settings/api/keys';

function secretsIn(html: string): string[] {
  return [...html.matchAll(SECRET_IN_PAGE)].map((match) => match[1] ?? '');
}

function setCookie(reply: Reply): string {
  const value = reply.headers['set-cookie']?.[0];
  assert.ok(value, 'no Set-Cookie');
  return value;
}

describe('panel', () => {
  // close() also proves that no key shown in a page reached the access log.
  const kmServer = keyManagementServerPerSuite();

  async function signedIn(
    tenant: string,
    role: 'admin' | 'member',
    environment: 'production' | 'sandbox' = 'production',
  ) {
    const km = kmServer();
    const client = new PanelClient(km, panelHost(tenant, environment));
    const user = fixtureUser(km.fixtures, tenant, role);
    const reply = await client.signIn(user.email, user.password);
    assert.equal(reply.status, 303, reply.body);
    assert.equal(reply.headers.location, '/settings');
    return client;
  }

  async function createKey(client: PanelClient, fields: Record<string, string | string[]>): Promise<string> {
    const km = kmServer();
    await client.get(KEYS_PAGE);
    const reply = await client.post(KEYS_PAGE, fields);
    assert.equal(reply.status, 201, reply.body);
    const shown = secretsIn(reply.body);
    assert.equal(shown.length, 1, 'the new key is shown exactly once');
    km.handedOut.push(shown[0] ?? '');
    return shown[0] ?? '';
  }

  test('over HTTP/2, as browsers speak it: sign-in, the keys page, and a form too large for it (413, the server stays up)', async () => {
    const km = kmServer();
    const client = new PanelClient(km, panelHost('acme'), true);
    const admin = fixtureUser(km.fixtures, 'acme', 'admin');
    const signedIn = await client.signIn(admin.email, admin.password);
    assert.equal(signedIn.status, 303, signedIn.body);
    assert.equal(signedIn.headers.location, '/settings');
    assert.equal((await client.get(KEYS_PAGE)).status, 200);
    // Over HTTP/1.1 this answer closes the connection (its body is left unread); HTTP/2 has no
    // such field, and only the stream ends.
    const tooLarge = await client.post(KEYS_PAGE, { name: 'x'.repeat(9 * 1024) });
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.headers.connection, undefined);
    const admin413 = await km.send({
      hostname: 'admin.localhost',
      method: 'POST',
      path: '/v1/tenants/acme/keys',
      headers: { Authorization: `Bearer ${km.adminToken}`, 'Content-Type': 'application/json' },
      body: 'x'.repeat(64 * 1024),
      http2: true,
    });
    assert.equal(admin413.status, 413, admin413.body);
    assert.equal((await client.get(KEYS_PAGE)).status, 200, 'still served after both');
  });

  test('the sign-in form makes no session; sign-in sets a __Host-, Secure, HttpOnly, SameSite=Strict session cookie, new each time', async () => {
    const km = kmServer();
    const client = new PanelClient(km, panelHost('acme'));
    const form = await client.get('/sign-in');
    assert.equal(form.status, 200);
    const formCookies = [form.headers['set-cookie'] ?? []].flat();
    assert.ok(
      formCookies.every((cookie) => cookie.startsWith('__Host-panel-sign-in=')),
      'the sign-in form set a cookie other than its CSRF nonce',
    );
    const user = fixtureUser(km.fixtures, 'acme', 'admin');
    const first = setCookie(await client.post('/sign-in', user));
    for (const attribute of ['Secure', 'HttpOnly', 'SameSite=Strict', 'Path=/']) {
      assert.ok(first.split('; ').includes(attribute), `${attribute} missing from ${first.split('=')[0]}`);
    }
    assert.match(first, /^__Host-panel-session=/);
    assert.doesNotMatch(first, /Domain=/i);
    const again = new PanelClient(km, panelHost('acme'));
    const second = setCookie(await again.signIn(user.email, user.password));
    assert.notEqual(second.split(';')[0], first.split(';')[0], 'two sign-ins got the same session id');
    assert.equal(form.headers['cache-control'], 'no-store');
    assert.match(String(form.headers['content-security-policy']), /script-src 'self'/);
  });

  test('a wrong password and an unknown e-mail get the same answer', async () => {
    const km = kmServer();
    const client = new PanelClient(km, panelHost('acme'));
    const admin = fixtureUser(km.fixtures, 'acme', 'admin');
    await client.get('/sign-in');
    const wrongPassword = await client.post('/sign-in', { email: admin.email, password: 'not-the-password' });
    const unknownEmail = await client.post('/sign-in', {
      email: 'nobody@acme.example',
      password: admin.password,
    });
    // A user of another tenant cannot sign in here either.
    const otherTenant = await client.post('/sign-in', fixtureUser(km.fixtures, 'globex', 'admin'));
    for (const reply of [wrongPassword, unknownEmail, otherTenant]) {
      assert.equal(reply.status, 401);
      assert.match(reply.body, /The e-mail or the password is wrong/);
      assert.equal(reply.headers['set-cookie'], undefined);
    }
  });

  test('every change without the session’s CSRF token, or from another origin, is refused', async () => {
    const km = kmServer();
    const signInForm = new PanelClient(km, panelHost('acme'));
    await signInForm.get('/sign-in');
    const admin = fixtureUser(km.fixtures, 'acme', 'admin');
    assert.equal((await signInForm.post('/sign-in', admin, { csrfToken: null })).status, 403);
    assert.equal((await signInForm.post('/sign-in', admin, { csrfToken: 'forged' })).status, 403);

    const client = await signedIn('acme', 'admin');
    await client.get(KEYS_PAGE);
    const listBefore = ((await km.admin('GET', '/tenants/acme/keys')).json as ApiKeyList).data.length;
    const form = { name: 'csrf', access: 'full_access' };
    const refusals = [
      await client.post(KEYS_PAGE, form, { csrfToken: null }),
      await client.post(KEYS_PAGE, form, { csrfToken: 'x'.repeat(43) }),
      await client.post(KEYS_PAGE, form, { headers: { Origin: 'https://evil.localhost' } }),
      await client.post(KEYS_PAGE, form, { headers: { 'Sec-Fetch-Site': 'cross-site' } }),
      await client.post(`${KEYS_PAGE}/key_acme_prod_full/revoke`, {}, { csrfToken: null }),
      await client.post('/sign-out', {}, { csrfToken: null }),
    ];
    for (const reply of refusals) {
      assert.equal(reply.status, 403);
      assert.match(reply.body, /did not come from this panel/);
      assert.equal(secretsIn(reply.body).length, 0);
    }
    assert.equal(((await km.admin('GET', '/tenants/acme/keys')).json as ApiKeyList).data.length, listBefore);
    assert.equal(
      (await km.customers('acme', 'production', 'mbk_prod_EHUEYGExFL9eKl61mpA1K6lMRQu5UCAA')).status,
      200,
    );
    // Another session's token is not this session's token.
    const other = await signedIn('acme', 'admin');
    await other.get(KEYS_PAGE);
    const borrowed = await client.post(KEYS_PAGE, form, { csrfToken: csrfTokenIn(other.lastPage) ?? null });
    assert.equal(borrowed.status, 403);
  });

  test('an admin sees Settings → API → API Keys, with keys shown by prefix and last four characters only', async () => {
    const client = await signedIn('acme', 'admin');
    const settings = await client.get('/settings');
    assert.match(settings.body, /href="\/settings\/api\/keys"/);
    const page = await client.get(KEYS_PAGE);
    assert.equal(page.status, 200);
    assert.match(page.body, /Settings → API → API Keys/);
    assert.match(page.body, /<code>mbk_prod_…5UCAA<\/code>|<code>mbk_prod_…UCAA<\/code>/);
    assert.ok(!page.body.includes('EHUEYGExFL9eKl61mpA1K6lMRQu5UCAA'), 'a fixture key is in the page');
    assert.equal(secretsIn(page.body).length, 0);
    // The production panel lists production keys only.
    assert.ok(!page.body.includes('mbk_dev_'));
  });

  test('creates each kind of key; the secret is shown once and works on the API of its environment', async () => {
    const km = kmServer();
    const production = await signedIn('acme', 'admin');
    const readOnly = await createKey(production, { name: 'panel read', access: 'read_only' });
    const full = await createKey(production, { name: 'panel full', access: 'full_access' });
    const chosen = await createKey(production, {
      name: 'panel invoices',
      access: 'custom',
      permissions: ['invoices:read', 'invoices:write'],
    });
    for (const key of [readOnly, full, chosen]) assert.match(key, /^mbk_prod_[A-Za-z0-9]{32}$/);
    assert.equal((await km.customers('acme', 'production', readOnly)).status, 200);
    assert.equal((await km.customers('acme', 'production', full)).status, 200);
    assert.equal((await km.customers('acme', 'production', chosen)).status, 403);

    const sandbox = await signedIn('acme', 'admin', 'sandbox');
    const development = await createKey(sandbox, { name: 'panel dev', access: 'read_only' });
    assert.match(development, /^mbk_dev_[A-Za-z0-9]{32}$/);
    assert.equal((await km.customers('acme', 'sandbox', development)).status, 200);
    assert.equal((await km.customers('acme', 'production', development)).status, 401);

    // Afterwards, the list shows each key by its prefix and last characters, never the secret.
    const again = await production.get(KEYS_PAGE);
    for (const key of [readOnly, full, chosen]) {
      assert.ok(!again.body.includes(key));
      assert.ok(again.body.includes(`mbk_prod_…${key.slice(-4)}`));
    }
  });

  test('refuses a creation form with a missing name or no chosen permission, creating nothing', async () => {
    const client = await signedIn('acme', 'admin');
    await client.get(KEYS_PAGE);
    const noName = await client.post(KEYS_PAGE, { name: '  ', access: 'read_only' });
    assert.equal(noName.status, 400);
    assert.match(noName.body, /Name: give 1 to 100 characters/);
    await client.get(KEYS_PAGE);
    const noPermission = await client.post(KEYS_PAGE, { name: 'nothing', access: 'custom' });
    assert.equal(noPermission.status, 400);
    assert.match(noPermission.body, /tick at least one permission/);
    for (const reply of [noName, noPermission]) assert.equal(secretsIn(reply.body).length, 0);
  });

  test('escapes what users type', async () => {
    const client = await signedIn('globex', 'admin');
    await createKey(client, { name: '<script>alert(1)</script>"', access: 'read_only' });
    const page = await client.get(KEYS_PAGE);
    assert.ok(!page.body.includes('<script>alert(1)'));
    assert.ok(page.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;&quot;'));
  });

  test('revoke: the API rejects the key at once; rotate: a new key, the old one rejected', async () => {
    const km = kmServer();
    const client = await signedIn('acme', 'admin');
    const key = await createKey(client, { name: 'panel revoke', access: 'full_access' });
    const id = /data-key-id="(key_[a-z0-9_]+)"/.exec(client.lastPage)?.[1];
    assert.ok(id);
    const revoked = await client.post(`${KEYS_PAGE}/${id}/revoke`, {});
    assert.equal(revoked.status, 303);
    const rejected = await km.customers('acme', 'production', key);
    assert.equal(rejected.status, 401);
    assert.equal((rejected.json as { error: { code: string } }).error.code, 'invalid_api_key');
    const notice = await client.get(revoked.headers.location as string);
    assert.match(notice.body, /is revoked\. The API rejects it from now on/);

    const old = await createKey(client, { name: 'panel rotate', access: 'read_only' });
    const oldId = /data-key-id="(key_[a-z0-9_]+)"/.exec(client.lastPage)?.[1];
    const rotated = await client.post(`${KEYS_PAGE}/${oldId}/rotate`, {});
    assert.equal(rotated.status, 201);
    const [fresh] = secretsIn(rotated.body);
    assert.ok(fresh && fresh !== old);
    km.handedOut.push(fresh);
    assert.equal((await km.customers('acme', 'production', fresh)).status, 200);
    assert.equal((await km.customers('acme', 'production', old)).status, 401);
  });

  test('a production panel cannot revoke a sandbox key', async () => {
    const km = kmServer();
    const client = await signedIn('acme', 'admin');
    await client.get(KEYS_PAGE);
    const reply = await client.post(`${KEYS_PAGE}/key_acme_dev_full/revoke`, {});
    assert.equal(reply.status, 404);
    assert.equal(
      (await km.customers('acme', 'sandbox', 'mbk_dev_Pk9X99sXHkUDEGAIVZYqRMfXS8B7eFso')).status,
      200,
    );
  });

  test('a member sees no API Keys entry, and its URLs answer 403', async () => {
    const client = await signedIn('acme', 'member');
    const settings = await client.get('/settings');
    assert.equal(settings.status, 200);
    assert.doesNotMatch(settings.body, /API Keys|\/settings\/api/);
    for (const path of ['/settings/api', KEYS_PAGE]) assert.equal((await client.get(path)).status, 403, path);
    await client.get('/settings');
    const post = await client.post(KEYS_PAGE, { name: 'member key', access: 'full_access' });
    assert.equal(post.status, 403);
    assert.equal(secretsIn(post.body).length, 0);
    assert.equal((await client.post(`${KEYS_PAGE}/key_acme_prod_full/revoke`, {})).status, 403);
  });

  test('for an account whose feature is disabled the page does not exist, even for its admin', async () => {
    const client = await signedIn('initech', 'admin');
    const settings = await client.get('/settings');
    assert.doesNotMatch(settings.body, /API Keys|\/settings\/api/);
    for (const path of ['/settings/api', KEYS_PAGE]) assert.equal((await client.get(path)).status, 404, path);
    await client.get('/settings');
    assert.equal((await client.post(KEYS_PAGE, { name: 'x', access: 'full_access' })).status, 404);
  });

  test('a session belongs to its host, and ends at sign-out', async () => {
    const km = kmServer();
    const client = await signedIn('acme', 'admin');
    const elsewhere = new PanelClient(km, panelHost('acme', 'sandbox'));
    elsewhere.cookie = client.cookie;
    const reply = await elsewhere.get(KEYS_PAGE);
    assert.equal(reply.status, 303);
    assert.equal(reply.headers.location, '/sign-in');

    await client.get('/settings');
    const signOut = await client.post('/sign-out', {});
    assert.equal(signOut.status, 303);
    assert.match(setCookie(signOut), /Max-Age=0/);
    const stale = new PanelClient(km, panelHost('acme'));
    stale.cookie = elsewhere.cookie;
    assert.equal((await stale.get(KEYS_PAGE)).status, 303);
  });

  test('without a session, pages send the browser to sign in and changes are refused', async () => {
    const km = kmServer();
    const client = new PanelClient(km, panelHost('acme'));
    const page = await client.get(KEYS_PAGE);
    assert.equal(page.status, 303);
    assert.equal(page.headers.location, '/sign-in');
    assert.equal(
      (await client.post(KEYS_PAGE, { name: 'x', access: 'full_access' }, { csrfToken: 'x' })).status,
      403,
    );
    const unknownTenant = await km
      .send({ hostname: panelHost('nosuch'), path: '/sign-in' })
      .catch((error: Error) => error);
    // The leaf certificate names only the served tenants' panels: an unknown one fails TLS.
    assert.ok(unknownTenant instanceof Error);
  });
});
