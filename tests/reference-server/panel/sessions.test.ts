// Panel sessions under anonymous traffic: the sign-in form makes no session (its CSRF token is a
// signed double-submit cookie), so no amount of traffic that has not signed in can push a signed-in
// session out; sessions are held per tenant and bounded, and only that tenant's sign-ins evict.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { SessionStore, SESSION_COOKIE } from '../../../reference-server/panel/sessions.ts';
import {
  csrfTokenIn,
  fixtureUser,
  panelHost,
  PanelClient,
  keyManagementServerPerSuite,
  type KeyManagementServer,
} from '../../support/key-management-client.ts';

/** `count` GETs of `path` on `hostname` without any cookie, over a few keep-alive connections. */
async function anonymousGets(km: KeyManagementServer, hostname: string, path: string, count: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const statuses = new Map<number, number>();
  let sessionCookies = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: km.server.httpsPort,
            path,
            agent,
            ca: km.ca,
            servername: hostname,
            headers: { Host: `${hostname}:${km.server.httpsPort}` },
            timeout: 30_000,
          },
          resolve,
        );
        req.on('timeout', () => req.destroy(new Error('no answer in time')));
        req.on('error', reject);
        req.end();
      });
      res.resume();
      await new Promise((resolve) => res.on('end', resolve));
      statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
      if ((res.headers['set-cookie'] ?? []).some((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`))) {
        sessionCookies += 1;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: 8 }, worker));
  } finally {
    agent.destroy();
  }
  return { statuses, sessionCookies };
}

describe('panel sessions under anonymous traffic', () => {
  const kmServer = keyManagementServerPerSuite();

  test('10 050 anonymous GETs of sign-in pages (another tenant’s and its own) leave a signed-in admin signed in', async () => {
    const km = kmServer();
    const acme = new PanelClient(km, panelHost('acme'));
    const admin = fixtureUser(km.fixtures, 'acme', 'admin');
    assert.equal((await acme.signIn(admin.email, admin.password)).status, 303);

    const globex = await anonymousGets(km, panelHost('globex'), '/sign-in', 10_050);
    assert.deepEqual([...globex.statuses], [[200, 10_050]]);
    assert.equal(globex.sessionCookies, 0, 'an anonymous GET was given a session');
    const own = await anonymousGets(km, panelHost('acme'), '/sign-in', 200);
    assert.equal(own.sessionCookies, 0);

    const settings = await acme.get('/settings');
    assert.equal(settings.status, 200, 'the admin was signed out');
    assert.match(settings.body, /Signed in as/);
  });

  test('the sign-in form needs its own cookie and token: missing, swapped or from another host, it is refused', async () => {
    const km = kmServer();
    const admin = fixtureUser(km.fixtures, 'acme', 'admin');
    const alice = new PanelClient(km, panelHost('acme'));
    await alice.get('/sign-in');
    const bob = new PanelClient(km, panelHost('acme'));
    await bob.get('/sign-in');
    assert.notEqual(alice.cookie, bob.cookie);

    const noCookie = new PanelClient(km, panelHost('acme'));
    const refused = [
      // A token without its cookie (an attacker's own page's token).
      await noCookie.post('/sign-in', admin, { csrfToken: csrfTokenIn(alice.lastPage) ?? null }),
      // Bob's cookie with Alice's token.
      await bob.post('/sign-in', admin, { csrfToken: csrfTokenIn(alice.lastPage) ?? null }),
      // A token of the sandbox panel's form, with that panel's cookie, on the production panel.
      await (async () => {
        const sandbox = new PanelClient(km, panelHost('acme', 'sandbox'));
        await sandbox.get('/sign-in');
        const elsewhere = new PanelClient(km, panelHost('acme'));
        elsewhere.cookie = sandbox.cookie;
        elsewhere.lastPage = sandbox.lastPage;
        return elsewhere.post('/sign-in', admin);
      })(),
      // The right pair, from another origin.
      await alice.post('/sign-in', admin, { headers: { Origin: 'https://evil.localhost' } }),
    ];
    for (const reply of refused) {
      assert.equal(reply.status, 403, reply.body);
      assert.equal(reply.headers['set-cookie'], undefined);
    }
    // The right pair from the panel itself signs in.
    await alice.get('/sign-in');
    assert.equal((await alice.post('/sign-in', admin)).status, 303);
  });
});

describe('session store limits', () => {
  const limits = { maxSessionsPerTenant: 2, idleMs: 60_000, absoluteMs: 60_000 };
  const cookieRequest = (id: string) =>
    ({ headers: { cookie: `${SESSION_COOKIE}=${id}` } }) as IncomingMessage;

  test('sign-ins of one tenant never evict another tenant’s sessions', () => {
    const store = new SessionStore(limits);
    const acme = store.start('acme.localhost', 'acme', 'usr_acme');
    for (let index = 0; index < 50; index++) store.start('globex.localhost', 'globex', `usr_${index}`);
    assert.equal(store.count('globex'), 2);
    assert.ok(store.fromRequest(cookieRequest(acme.id), 'acme', 'acme.localhost'));
  });

  test('past the bound, the tenant’s least recently used session goes first', () => {
    const store = new SessionStore(limits);
    const first = store.start('acme.localhost', 'acme', 'usr_1');
    const second = store.start('acme.localhost', 'acme', 'usr_2');
    // Using the first makes the second the least recently used.
    assert.ok(store.fromRequest(cookieRequest(first.id), 'acme', 'acme.localhost'));
    store.start('acme.localhost', 'acme', 'usr_3');
    assert.equal(store.count('acme'), 2);
    assert.ok(store.fromRequest(cookieRequest(first.id), 'acme', 'acme.localhost'));
    assert.equal(store.fromRequest(cookieRequest(second.id), 'acme', 'acme.localhost'), undefined);
  });
});
