// A key sent over plain HTTP is shown as exposed in the panel's key list, with rotation advised,
// until it is rotated (the replacement is not exposed, the old key is revoked).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import {
  fixtureUser,
  panelHost,
  PanelClient,
  keyManagementServerPerSuite,
} from '../../support/key-management-client.ts';
import { apiHostname } from '../../../reference-server/http/hosts.ts';
import { secretOf } from '../../support/reference-client.ts';

const KEYS_PAGE = '/settings/api/keys';
const EXPOSED_ROW =
  /<tr class="" data-key-id="([^"]+)">(?:(?!<\/tr>)[\s\S])*Exposed(?:(?!<\/tr>)[\s\S])*rotate it/g;

const kmServer = keyManagementServerPerSuite({ plainHttp: true });

function sendOverPlainHttp(key: string): Promise<number> {
  const km = kmServer();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: km.server.httpPort ?? 0,
        path: '/v1/customers',
        headers: { Host: apiHostname('acme', 'production', 'localhost'), Authorization: `Bearer ${key}` },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function exposedIn(page: string): string[] {
  return [...page.matchAll(EXPOSED_ROW)].map((match) => match[1] ?? '');
}

test('the panel shows a key sent over plain HTTP as exposed, until it is rotated', async () => {
  const km = kmServer();
  const client = new PanelClient(km, panelHost('acme'));
  const user = fixtureUser(km.fixtures, 'acme', 'admin');
  assert.equal((await client.signIn(user.email, user.password)).status, 303);
  assert.deepEqual(exposedIn((await client.get(KEYS_PAGE)).body), [], 'nothing is exposed before');

  assert.equal(await sendOverPlainHttp(secretOf(km.fixtures, 'key_acme_prod_read')), 403);
  assert.deepEqual(exposedIn((await client.get(KEYS_PAGE)).body), ['key_acme_prod_read']);

  const rotated = await client.post(`${KEYS_PAGE}/key_acme_prod_read/rotate`, {});
  assert.equal(rotated.status, 201, rotated.body);
  const shown = /value="(mbk_prod_[A-Za-z0-9]{32})"/.exec(rotated.body)?.[1];
  if (shown) km.handedOut.push(shown);
  assert.deepEqual(
    exposedIn((await client.get(KEYS_PAGE)).body),
    [],
    'a rotated key is no longer shown as exposed',
  );
});
