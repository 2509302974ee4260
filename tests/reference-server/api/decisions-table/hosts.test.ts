// The rows of the decisions table (docs/decisions.md) for one step of a request's path, over
// real HTTPS — the host: which tenant a request is for (SNI, Host, forwarding headers).
// The other steps are in the files beside this one; decisions-table.ts holds what they share.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { comparable } from '../../../support/reference-assertions.ts';
import { hostOf } from '../../../support/reference-client.ts';
import { useDecisionsServer, UNKNOWN_PROD_KEY } from './decisions-table.ts';

describe('the decisions table, the host: which tenant a request is for (SNI, Host, forwarding headers)', () => {
  const table = useDecisionsServer();
  const { auth, bearer, get, assertServes, rejected } = table;

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
    const port = table.target.server.httpsPort;
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
});
