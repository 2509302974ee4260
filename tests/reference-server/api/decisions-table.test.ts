// Every row of the decisions table (docs/decisions.md) shown over real HTTPS: the
// status, `error.code`, schema-valid body and headers of each answer, and that a rejected request
// gets no customer data of any tenant. Each negative case sits beside a positive control, so
// that a test cannot pass because nothing works.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertChallenge,
  assertCustomersReply,
  assertErrorReply,
  comparable,
  customerMarkers,
} from '../../support/reference-assertions.ts';
import {
  hostOf,
  secretOf,
  send,
  startTestServer,
  type Reply,
  type SendOptions,
  type TestServer,
} from '../../support/reference-client.ts';
import type { Environment } from '../../../reference-server/http/hosts.ts';

/** Well-formed keys (right prefix, 32 base62 characters) that no tenant has. */
const UNKNOWN_PROD_KEY = `mbk_prod_${'Q7'.repeat(16)}`;
const UNKNOWN_DEV_KEY = `mbk_dev_${'Q7'.repeat(16)}`;
const QUERY_KEY_NAMES = ['access_token', 'api_key', 'apikey', 'key', 'token'] as const;

describe('reference server: the decisions table over HTTPS', () => {
  let target: TestServer;
  before(async () => {
    target = await startTestServer();
  });
  after(async () => {
    await target.close();
  });

  const key = (id: string): string => secretOf(target.fixtures, id);
  const auth = (value: string): Array<[string, string]> => [['Authorization', value]];
  const bearer = (keyId: string): Array<[string, string]> => auth(`Bearer ${key(keyId)}`);
  const get = (options: SendOptions): Promise<Reply> => send(target, options);
  const customerIds = (tenant: string, environment: Environment): string[] => {
    const found = target.fixtures.tenants.find((candidate) => candidate.id === tenant);
    assert.ok(found, tenant);
    return found.customers[environment].map((customer) => customer.id);
  };
  /** A 200 with exactly this tenant's customers of this environment, nothing else. */
  const assertServes = (reply: Reply, tenant: string, environment: Environment): void => {
    const body = assertCustomersReply(reply);
    const expected = customerIds(tenant, environment);
    assert.ok(expected.length > 0, `the fixtures give ${tenant} ${environment} customers`);
    assert.deepEqual(
      body.data.map((customer) => customer.id),
      expected,
    );
    const own = new Set(body.data.flatMap((customer) => [customer.id, customer.name, customer.email]));
    for (const marker of customerMarkers(target.fixtures)) {
      if (!own.has(marker)) assert.ok(!reply.body.includes(marker), `foreign customer data: ${marker}`);
    }
  };
  const rejected = (reply: Reply, code: string, challenge: 'realm' | 'invalid_token' | 'none'): void => {
    const status = code === 'misdirected_request' ? 421 : 401;
    assertErrorReply(reply, { status, code, challenge }, target.fixtures);
  };

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

  test('unknown, revoked, truncated, extended and wrong-case keys: 401 invalid_api_key', async () => {
    const secret = key('key_acme_prod_full');
    const swapCase = (text: string): string =>
      text.replace(/[a-z]/gi, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    const lastLetter = secret.search(/[a-z][^a-z]*$/i);
    for (const presented of [
      UNKNOWN_PROD_KEY,
      key('key_acme_prod_revoked'),
      secret.slice(0, -1),
      secret.slice(1),
      'mbk_prod_',
      `${secret}A`,
      `${secret}=`,
      `A${secret}`,
      swapCase(secret),
      secret.toUpperCase(),
      secret.slice(0, lastLetter) + swapCase(secret.charAt(lastLetter)) + secret.slice(lastLetter + 1),
    ]) {
      assert.notEqual(presented, secret);
      rejected(await get({ headers: auth(`Bearer ${presented}`) }), 'invalid_api_key', 'invalid_token');
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

  test("tenant A's key on tenant B: the same status, body and headers as an unknown key", async () => {
    for (const [keyId, tenant] of [
      ['key_acme_prod_full', 'globex'],
      ['key_globex_prod_full', 'acme'],
      ['key_acme_prod_read', 'globex'],
      ['key_globex_prod_full', 'initech'],
    ] as const) {
      const foreign = await get({ tenant, headers: bearer(keyId) });
      const unknown = await get({ tenant, headers: auth(`Bearer ${UNKNOWN_PROD_KEY}`) });
      rejected(foreign, 'invalid_api_key', 'invalid_token');
      rejected(unknown, 'invalid_api_key', 'invalid_token');
      assert.deepEqual(comparable(foreign), comparable(unknown), `${keyId} on ${tenant}`);
    }
    for (const [keyId, tenant] of [
      ['key_acme_dev_full', 'globex'],
      ['key_globex_dev_full', 'acme'],
    ] as const) {
      const foreign = await get({ tenant, environment: 'sandbox', headers: bearer(keyId) });
      const unknown = await get({
        tenant,
        environment: 'sandbox',
        headers: auth(`Bearer ${UNKNOWN_DEV_KEY}`),
      });
      assert.deepEqual(comparable(foreign), comparable(unknown), `${keyId} on sandbox-${tenant}`);
    }
  });

  test('a well-formed host of a tenant that does not exist answers like an unknown key on a real tenant', async () => {
    const unknownOnAcme = comparable(await get({ headers: auth(`Bearer ${UNKNOWN_PROD_KEY}`) }));
    for (const tenant of ['umbrella', 'no-such-tenant', 'acme2']) {
      const reply = await get({ tenant, headers: bearer('key_acme_prod_full') });
      rejected(reply, 'invalid_api_key', 'invalid_token');
      assert.deepEqual(comparable(reply), unknownOnAcme, tenant);
      rejected(await get({ tenant }), 'missing_authorization_header', 'realm');
      const sandbox = await get({ tenant, environment: 'sandbox', headers: bearer('key_acme_dev_full') });
      rejected(sandbox, 'invalid_api_key', 'invalid_token');
    }
  });

  test('a host that matches no tenant pattern: 421 misdirected_request, even with a valid key', async () => {
    const certified = hostOf('acme');
    for (const host of [
      'api.localhost',
      'foo_bar.api.localhost',
      'acme--x.api.localhost',
      '-acme.api.localhost',
      'sandbox-.api.localhost',
      'a.b.api.localhost',
      'acme.api.example.com',
      'acme.api.localhost.example.com',
      'localhost',
    ]) {
      // The certificate covers only `*.api.localhost`: the chain is still verified, and the name
      // checked is the tenant's, since the point is what the server does with this SNI and Host.
      const reply = await get({
        host,
        servername: host,
        verifyHostname: certified,
        headers: bearer('key_acme_prod_full'),
      });
      rejected(reply, 'misdirected_request', 'none');
    }
  });

  test('SNI naming one tenant and Host another: 421 before any authentication', async () => {
    const cases: Array<{ servername: string; host: string; keyId?: string }> = [
      { servername: hostOf('acme'), host: hostOf('globex'), keyId: 'key_globex_prod_full' },
      { servername: hostOf('acme'), host: hostOf('globex'), keyId: 'key_acme_prod_full' },
      { servername: hostOf('acme'), host: hostOf('globex') },
      { servername: hostOf('globex'), host: hostOf('acme'), keyId: 'key_acme_prod_full' },
      { servername: hostOf('acme', 'sandbox'), host: hostOf('acme'), keyId: 'key_acme_prod_full' },
      { servername: hostOf('acme'), host: hostOf('acme', 'sandbox'), keyId: 'key_acme_dev_full' },
      { servername: hostOf('umbrella'), host: hostOf('acme'), keyId: 'key_acme_prod_full' },
    ];
    for (const { servername, host, keyId } of cases) {
      const reply = await get({ servername, host, ...(keyId ? { headers: bearer(keyId) } : {}) });
      rejected(reply, 'misdirected_request', 'none');
    }
    // No SNI at all is a mismatch too.
    const noSni = await get({
      servername: '',
      verifyHostname: hostOf('acme'),
      headers: bearer('key_acme_prod_full'),
    });
    rejected(noSni, 'misdirected_request', 'none');
    // Control: the same host in another spelling (letter case, port, trailing dot) is no mismatch.
    const port = target.server.httpsPort;
    for (const host of [`ACME.api.localhost:${port}`, `acme.api.localhost:${port}`, 'acme.api.localhost.']) {
      assertServes(
        await get({ servername: hostOf('acme'), host, headers: bearer('key_acme_prod_full') }),
        'acme',
        'production',
      );
    }
  });

  test('X-Forwarded-Host, Forwarded, X-Tenant-Id and tenant_id/company_id/organization_id never change the tenant', async () => {
    const globexHost = hostOf('globex');
    const overrides: Array<[string, string]> = [
      ['X-Forwarded-Host', globexHost],
      ['Forwarded', `host=${globexHost};proto=https`],
      ['X-Tenant-Id', 'globex'],
      ['Tenant-Id', 'globex'],
      ['tenant_id', 'globex'],
      ['company_id', 'globex'],
      ['organization_id', 'globex'],
      ['Company-Id', 'globex'],
      ['Organization-Id', 'globex'],
      ['X-Original-Host', globexHost],
      ['X-Host', globexHost],
    ];
    const query = '?tenant_id=globex&company_id=globex&organization_id=globex&tenant=globex';
    const variants: Array<{ headers: Array<[string, string]>; query: string }> = [
      ...overrides.map((header) => ({ headers: [header], query: '' })),
      { headers: [], query },
      { headers: overrides, query },
    ];
    for (const { headers, query: search } of variants) {
      const path = `/v1/customers${search}`;
      // acme's key on acme's host stays acme's, production.
      assertServes(
        await get({ path, headers: [...bearer('key_acme_prod_full'), ...headers] }),
        'acme',
        'production',
      );
      // globex's key on acme's host stays rejected, whatever names globex.
      rejected(
        await get({ path, headers: [...bearer('key_globex_prod_full'), ...headers] }),
        'invalid_api_key',
        'invalid_token',
      );
      // No key: still missing, nothing served.
      rejected(await get({ path, headers }), 'missing_authorization_header', 'realm');
    }
    // Nor in a JSON body (the spec's clients never send these fields; a server must not read them).
    const body = JSON.stringify({ tenant_id: 'globex', company_id: 'globex', organization_id: 'globex' });
    const json: Array<[string, string]> = [['Content-Type', 'application/json']];
    assertServes(
      await get({ body, headers: [...bearer('key_acme_prod_full'), ...json] }),
      'acme',
      'production',
    );
    rejected(
      await get({ body, headers: [...bearer('key_globex_prod_full'), ...json] }),
      'invalid_api_key',
      'invalid_token',
    );
    // Pointing at the sandbox host does not switch environments either.
    assertServes(
      await get({
        headers: [...bearer('key_acme_prod_full'), ['X-Forwarded-Host', hostOf('acme', 'sandbox')]],
      }),
      'acme',
      'production',
    );
  });

  test('a development key on the production API and a production key on the sandbox API: 401 invalid_api_key', async () => {
    for (const tenant of ['acme', 'globex']) {
      for (const kind of ['full', 'read']) {
        rejected(
          await get({ tenant, headers: bearer(`key_${tenant}_dev_${kind}`) }),
          'invalid_api_key',
          'invalid_token',
        );
        rejected(
          await get({ tenant, environment: 'sandbox', headers: bearer(`key_${tenant}_prod_${kind}`) }),
          'invalid_api_key',
          'invalid_token',
        );
        // Controls: each key in its own environment.
        assertServes(
          await get({ tenant, headers: bearer(`key_${tenant}_prod_${kind}`) }),
          tenant,
          'production',
        );
        assertServes(
          await get({ tenant, environment: 'sandbox', headers: bearer(`key_${tenant}_dev_${kind}`) }),
          tenant,
          'sandbox',
        );
      }
    }
  });

  test('a valid key without the customers permission: 403 insufficient_permissions', async () => {
    for (const tenant of ['acme', 'globex']) {
      const reply = await get({ tenant, headers: bearer(`key_${tenant}_prod_no_customers`) });
      const body = assertErrorReply(
        reply,
        { status: 403, code: 'insufficient_permissions', challenge: 'insufficient_scope' },
        target.fixtures,
      );
      assert.equal(body.error.message, 'You do not have permission to access this resource.');
    }
  });

  test('Read Only keys read customers', async () => {
    for (const tenant of ['acme', 'globex']) {
      assertServes(await get({ tenant, headers: bearer(`key_${tenant}_prod_read`) }), tenant, 'production');
      assertServes(
        await get({ tenant, environment: 'sandbox', headers: bearer(`key_${tenant}_dev_read`) }),
        tenant,
        'sandbox',
      );
    }
  });

  test('a revoked key: 401 invalid_api_key, like an unknown key', async () => {
    for (const tenant of ['acme', 'globex']) {
      const revoked = await get({ tenant, headers: bearer(`key_${tenant}_prod_revoked`) });
      rejected(revoked, 'invalid_api_key', 'invalid_token');
      const unknown = await get({ tenant, headers: auth(`Bearer ${UNKNOWN_PROD_KEY}`) });
      assert.deepEqual(comparable(revoked), comparable(unknown));
    }
  });

  test('initech (API keys feature disabled): nothing authenticates, no data', async () => {
    const initech = target.fixtures.tenants.find((tenant) => tenant.id === 'initech');
    assert.equal(initech?.apiKeysEnabled, false);
    for (const environment of ['production', 'sandbox'] as const) {
      rejected(await get({ tenant: 'initech', environment }), 'missing_authorization_header', 'realm');
      for (const keyId of ['key_acme_prod_full', 'key_acme_dev_full', 'key_globex_prod_full']) {
        rejected(
          await get({ tenant: 'initech', environment, headers: bearer(keyId) }),
          'invalid_api_key',
          'invalid_token',
        );
      }
    }
  });

  test('an unknown path with a valid key: 404 not_found as JSON; without a key the 401 comes first', async () => {
    for (const path of [
      '/v1/customers/',
      '/v1/customer',
      '/v1/customers/cus_acme_prod_001',
      '/v2/customers',
      '/customers',
      '/v1',
      '/',
      '/v1/customers/../customers',
      '/V1/customers',
    ]) {
      const reply = await get({ path, headers: bearer('key_acme_prod_full') });
      assertErrorReply(reply, { status: 404, code: 'not_found' }, target.fixtures);
      rejected(await get({ path }), 'missing_authorization_header', 'realm');
    }
  });

  test('another method with a valid key: 405 method_not_allowed as JSON, with Allow', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const reply = await get({
        method,
        headers: [
          ...bearer('key_acme_prod_full'),
          ['Content-Type', 'application/json'],
          ['Content-Length', '0'],
        ],
      });
      assertErrorReply(reply, { status: 405, code: 'method_not_allowed' }, target.fixtures);
      assert.equal(reply.headers.allow, 'GET, HEAD');
    }
    // HEAD is allowed: the headers of the GET, no body.
    const head = await get({ method: 'HEAD', headers: bearer('key_acme_prod_full') });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.match(head.headers['content-type'] ?? '', /^application\/json/);
  });

  test('success: each key gets exactly its own tenant and environment customers, schema-valid', async () => {
    for (const tenant of ['acme', 'globex']) {
      const reply = await get({
        tenant,
        headers: [
          ...bearer(`key_${tenant}_prod_full`),
          ['Accept', 'application/json'],
          ['Content-Type', 'application/json'],
        ],
      });
      assertServes(reply, tenant, 'production');
      assertChallenge(reply, 'none');
      assertServes(
        await get({ tenant, environment: 'sandbox', headers: bearer(`key_${tenant}_dev_full`) }),
        tenant,
        'sandbox',
      );
    }
  });
});
