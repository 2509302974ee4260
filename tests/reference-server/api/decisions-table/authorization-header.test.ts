// The rows of the decisions table (docs/decisions.md) for one step of a request's path, over
// real HTTPS — the Authorization header: its scheme, its form, one of it, never the URL.
// The other steps are in the files beside this one; decisions-table.ts holds what they share.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useDecisionsServer, UNKNOWN_PROD_KEY, QUERY_KEY_NAMES } from './decisions-table.ts';

describe('the decisions table, the Authorization header: its scheme, its form, one of it, never the URL', () => {
  const table = useDecisionsServer();
  const { key, auth, bearer, get, assertServes, rejected } = table;

  test('no Authorization header: 401 missing_authorization_header with a bare Bearer realm challenge', async () => {
    for (const [tenant, environment] of [
      ['acme', 'production'],
      ['acme', 'sandbox'],
      ['globex', 'production'],
      ['initech', 'production'],
    ] as const) {
      const reply = await get({ tenant, environment });
      rejected(reply, 'missing_authorization_header', 'realm');
      const body = JSON.parse(reply.body) as { error: { message: string } };
      assert.equal(body.error.message, 'Authorization header is required.');
    }
  });

  test('an empty value, another scheme or a bare key: 401 missing_authorization_header', async () => {
    const secret = key('key_acme_prod_full');
    for (const value of [
      '',
      `Basic ${Buffer.from(`acme:${secret}`).toString('base64')}`,
      secret,
      `Token ${secret}`,
      `Bearerx ${secret}`,
    ]) {
      rejected(await get({ headers: auth(value) }), 'missing_authorization_header', 'realm');
    }
  });

  test('the scheme name is case-insensitive (RFC 9110 §11.1): Bearer, bearer, BEARER, bEaReR', async () => {
    const secret = key('key_acme_prod_full');
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      assertServes(await get({ headers: auth(`${scheme} ${secret}`) }), 'acme', 'production');
    }
  });

  test('a quoted key is rejected with invalid_api_key, never unquoted', async () => {
    const secret = key('key_acme_prod_full');
    assertServes(await get({ headers: auth(`Bearer ${secret}`) }), 'acme', 'production');
    for (const quoted of [
      `"${secret}"`,
      `'${secret}'`,
      `"${secret}`,
      `${secret}"`,
      `'${secret}`,
      `\`${secret}\``,
    ]) {
      const reply = await get({ headers: auth(`Bearer ${quoted}`) });
      rejected(reply, 'invalid_api_key', 'invalid_token');
      const body = JSON.parse(reply.body) as { error: { message: string } };
      assert.equal(body.error.message, 'The provided API key is invalid.');
    }
  });

  test('malformed Bearer credentials: empty token, tab, internal space, extra params, non-token68', async () => {
    const secret = key('key_acme_prod_full');
    for (const value of [
      'Bearer',
      'Bearer ',
      `Bearer\t${secret}`,
      `Bearer ${secret.slice(0, 12)} ${secret.slice(12)}`,
      `Bearer ${secret}\t${secret}`,
      `Bearer ${secret} extra`,
      `Bearer ${secret}, realm="api"`,
      `Bearer realm="api", ${secret}`,
      `Bearer token=${secret}`,
      `Bearer ${secret},`,
      `Bearer ${secret};`,
      `Bearer ${secret}!`,
      `Bearer ${secret}\u00e9`,
      `Bearer=${secret}`,
      `Bearer:${secret}`,
    ]) {
      rejected(await get({ headers: auth(value) }), 'invalid_api_key', 'invalid_token');
    }
  });

  test('two Authorization headers are rejected whatever they hold', async () => {
    const valid = `Bearer ${key('key_acme_prod_full')}`;
    for (const pair of [
      [valid, valid],
      [valid, `Bearer ${UNKNOWN_PROD_KEY}`],
      [`Bearer ${UNKNOWN_PROD_KEY}`, valid],
      ['', valid],
      [valid, ''],
      [`Basic ${Buffer.from('a:b').toString('base64')}`, valid],
    ] as const) {
      const reply = await get({
        headers: [
          ['Authorization', pair[0]],
          ['authorization', pair[1]],
        ],
      });
      rejected(reply, 'invalid_api_key', 'invalid_token');
    }
  });

  test('keys in URL query parameters never authenticate: 401 missing_authorization_header', async () => {
    const secret = key('key_acme_prod_full');
    for (const name of QUERY_KEY_NAMES) {
      for (const value of [secret, `Bearer ${secret}`]) {
        const path = `/v1/customers?${name}=${encodeURIComponent(value)}`;
        rejected(await get({ path }), 'missing_authorization_header', 'realm');
      }
    }
    const all = QUERY_KEY_NAMES.map((name) => `${name}=${secret}`).join('&');
    rejected(await get({ path: `/v1/customers?${all}` }), 'missing_authorization_header', 'realm');
    // Beside a valid header, a key in the URL changes nothing either.
    const other = key('key_globex_prod_full');
    assertServes(
      await get({ path: `/v1/customers?access_token=${other}`, headers: bearer('key_acme_prod_full') }),
      'acme',
      'production',
    );
  });
});
