// Sign-in throttling: past a few failures an account, or an address, must wait before its next
// attempt (429 with Retry-After, the password unchecked); the wait doubles up to a bound, and once
// it is over the real password signs in — the real user is slowed, never locked out for good.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ACCOUNT_THROTTLE,
  ADDRESS_THROTTLE,
  SignInThrottle,
  Throttle,
  type ThrottleSettings,
} from '../../../reference-server/panel/sign-in-throttle.ts';
import {
  fixtureUser,
  panelHost,
  PanelClient,
  keyManagementServerPerSuite,
  type Reply,
} from '../../support/key-management-client.ts';

async function attempt(client: PanelClient, email: string, password: string): Promise<Reply> {
  await client.get('/sign-in');
  return client.post('/sign-in', { email, password });
}

describe('sign-in throttle over the panel', () => {
  const kmServer = keyManagementServerPerSuite();

  test('a guessed account gets 429 with Retry-After, even for the right password; after the wait, the right password signs in', async () => {
    const km = kmServer();
    const admin = fixtureUser(km.fixtures, 'globex', 'admin');
    const client = new PanelClient(km, panelHost('globex'));
    const statuses: number[] = [];
    for (let guess = 0; guess < 30; guess++) {
      statuses.push((await attempt(client, admin.email, `guess-${guess}`)).status);
    }
    const checked = statuses.filter((status) => status === 401).length;
    // The free failures, plus at most a few whose wait (1 s, then 2 s…) a slow machine outlasted.
    assert.ok(checked <= ACCOUNT_THROTTLE.freeFailures + 3, `${checked} of 30 guesses were checked`);
    assert.ok(statuses.includes(429));

    const blocked = await attempt(client, admin.email, admin.password);
    assert.equal(blocked.status, 429, 'the right password was let through during the wait');
    const retryAfter = Number(blocked.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1,
      `Retry-After: ${String(blocked.headers['retry-after'])}`,
    );
    assert.match(blocked.body, /Too many failed sign-ins\. Wait \d+ seconds? and try again\./);
    assert.equal(blocked.headers['set-cookie'], undefined);

    await sleep(retryAfter * 1000 + 100);
    const signedIn = await attempt(client, admin.email, admin.password);
    assert.equal(signedIn.status, 303, signedIn.body);
  });

  test('one address guessing many accounts gets 429 too, for an account it never tried', async () => {
    const km = kmServer();
    // On this server the address has failed only in the test above, whose account then signed in.
    const client = new PanelClient(km, panelHost('acme'));
    const statuses: number[] = [];
    for (let guess = 0; guess < 40 && !statuses.includes(429); guess++) {
      statuses.push((await attempt(client, `nobody-${guess}@acme.example`, 'wrong')).status);
    }
    assert.ok(statuses.includes(429), `statuses: ${statuses.join(' ')}`);
    assert.ok(statuses.length <= ADDRESS_THROTTLE.freeFailures + 1, `${statuses.length} accounts tried`);
    const fresh = await attempt(client, 'never-tried@acme.example', 'wrong');
    assert.equal(fresh.status, 429);
    assert.ok(Number(fresh.headers['retry-after']) >= 1);
  });
});

describe('throttle timing', () => {
  const settings: ThrottleSettings = {
    freeFailures: 2,
    baseDelayMs: 1_000,
    maxDelayMs: 8_000,
    forgetMs: 60_000,
    maxEntries: 3,
  };

  test('free failures, then a wait that doubles up to the bound', () => {
    let now = 0;
    const throttle = new Throttle(settings, () => now);
    const waits: number[] = [];
    for (let failure = 0; failure < 8; failure++) {
      throttle.failed('a');
      waits.push(throttle.waitMs('a'));
      now += 10_000;
    }
    assert.deepEqual(waits, [0, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000, 8_000]);
  });

  test('the count is forgotten after forgetMs, and cleared by a success', () => {
    let now = 0;
    const throttle = new Throttle(settings, () => now);
    for (let failure = 0; failure < 4; failure++) throttle.failed('a');
    assert.ok(throttle.waitMs('a') > 0);
    now = 60_001;
    assert.equal(throttle.waitMs('a'), 0);
    for (let failure = 0; failure < 4; failure++) throttle.failed('b');
    throttle.succeeded('b');
    assert.equal(throttle.waitMs('b'), 0);
  });

  test('sign-in: the account’s count and the address’s count each throttle; a success clears only the account’s', () => {
    let now = 0;
    const signIn = new SignInThrottle(settings, { ...settings, freeFailures: 4 }, () => now);
    const account = { tenant: 'acme', email: 'admin@acme.example', address: '192.0.2.1' };
    signIn.failed(account);
    signIn.failed({ ...account, email: ' ADMIN@acme.example ' });
    assert.equal(signIn.retryAfterSeconds(account), 1, 'the e-mail is compared as the directory does');
    assert.equal(signIn.retryAfterSeconds({ ...account, address: '192.0.2.2' }), 1);
    now += 10_000;
    signIn.failed({ ...account, email: 'x@acme.example' });
    signIn.failed({ ...account, email: 'y@acme.example' });
    signIn.succeeded(account);
    assert.equal(signIn.retryAfterSeconds({ ...account, address: '192.0.2.2' }), 0);
    assert.equal(signIn.retryAfterSeconds({ ...account, email: 'z@acme.example' }), 1);
  });
});
