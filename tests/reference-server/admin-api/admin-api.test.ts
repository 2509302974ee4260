// The admin JSON API: authenticated by its own token only, and each operation visible at once on
// the tenant API (a created key works, a revoked one is rejected with invalid_api_key).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type {
  ApiKeyList,
  ApiKeyMetadata,
  CreatedKey,
  RotatedKey,
} from '../../../schemas/generated/api-key-management.ts';
import type { ErrorBody } from '../../../schemas/generated/error.ts';
import { validatorFor } from '../../../schemas/validators.ts';
import { readFileSync, rmSync } from 'node:fs';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../../reference-server/store/fixtures.ts';
import { startReferenceServer } from '../../../reference-server/server.ts';
import { send, keyManagementServerPerSuite } from '../../support/key-management-client.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const KEY_FORMAT = {
  production: /^mbk_prod_[A-Za-z0-9]{32}$/,
  sandbox: /^mbk_dev_[A-Za-z0-9]{32}$/,
};
const FIXTURE_KEY = 'mbk_prod_EHUEYGExFL9eKl61mpA1K6lMRQu5UCAA'; // key_acme_prod_full, a public test value

function errorCode(json: unknown): string | undefined {
  return (json as ErrorBody | undefined)?.error.code;
}

describe('admin API', () => {
  // close() also proves that no key handed out, and not the admin token, reached the access log.
  const kmServer = keyManagementServerPerSuite();

  async function create(tenant: string, body: unknown): Promise<CreatedKey> {
    const km = kmServer();
    const reply = await km.admin('POST', `/tenants/${tenant}/keys`, body);
    assert.equal(reply.status, 201, reply.body);
    const created = reply.json as CreatedKey;
    km.handedOut.push(created.secret);
    return created;
  }

  test('refuses a request without the admin token, with a Bearer challenge of realm admin', async () => {
    const km = kmServer();
    const reply = await km.send({ hostname: 'admin.localhost', path: '/v1/tenants/acme/keys' });
    assert.equal(reply.status, 401);
    assert.equal(errorCode(JSON.parse(reply.body)), 'admin_unauthorized');
    assert.equal(reply.headers['www-authenticate'], 'Bearer realm="admin"');
  });

  test('never accepts an API key, or a wrong token, as the admin token', async () => {
    const km = kmServer();
    for (const token of [FIXTURE_KEY, `${km.adminToken}x`, km.adminToken.slice(0, -1)]) {
      const reply = await km.admin('GET', '/tenants/acme/keys', undefined, token);
      assert.equal(reply.status, 401);
      assert.equal(errorCode(reply.json), 'admin_unauthorized');
      assert.ok(!reply.body.includes(token), 'the presented token is echoed');
    }
  });

  test('lists the tenants, and each tenant’s keys as metadata without any secret', async () => {
    const km = kmServer();
    const tenants = await km.admin('GET', '/tenants');
    assert.equal(tenants.status, 200);
    assert.deepEqual(
      (tenants.json as { data: { id: string }[] }).data.map((tenant) => tenant.id),
      ['acme', 'globex', 'initech'],
    );
    const reply = await km.admin('GET', '/tenants/acme/keys');
    assert.equal(reply.status, 200);
    const list = reply.json as ApiKeyList;
    assert.ok(validatorFor('api-key-management.schema.json#/definitions/ApiKeyList')(list));
    const full = list.data.find((key) => key.id === 'key_acme_prod_full');
    assert.ok(full);
    assert.equal(full.prefix, 'mbk_prod_');
    assert.equal(full.last4, FIXTURE_KEY.slice(-4));
    assert.ok(!reply.body.includes(FIXTURE_KEY.slice(9, -4)), 'a key’s secret part is listed');
    const sandboxOnly = (await km.admin('GET', '/tenants/acme/keys?environment=sandbox')).json as ApiKeyList;
    assert.ok(sandboxOnly.data.length > 0);
    assert.ok(sandboxOnly.data.every((key) => key.environment === 'sandbox'));
  });

  test('creates a production Read Only key that works at once on the production API only', async () => {
    const km = kmServer();
    const created = await create('acme', { name: 'CI read', environment: 'production', access: 'read_only' });
    assert.match(created.secret, KEY_FORMAT.production);
    assert.ok(validatorFor('api-key-management.schema.json#/definitions/CreatedKey')(created));
    assert.equal(created.key.last4, created.secret.slice(-4));
    assert.deepEqual(created.key.permissions, ['customers:read', 'invoices:read']);
    assert.equal((await km.customers('acme', 'production', created.secret)).status, 200);
    const onSandbox = await km.customers('acme', 'sandbox', created.secret);
    assert.equal(errorCode(onSandbox.json), 'invalid_api_key');
    const onOtherTenant = await km.customers('globex', 'production', created.secret);
    assert.equal(errorCode(onOtherTenant.json), 'invalid_api_key');
    // The list never holds the secret again.
    const list = await km.admin('GET', '/tenants/acme/keys');
    assert.ok(!list.body.includes(created.secret));
    assert.ok((list.json as ApiKeyList).data.some((key) => key.id === created.key.id));
  });

  test('creates a development key with chosen permissions, enforced by the sandbox API', async () => {
    const km = kmServer();
    const created = await create('acme', {
      name: 'invoices only',
      environment: 'sandbox',
      access: 'custom',
      permissions: ['invoices:read'],
    });
    assert.match(created.secret, KEY_FORMAT.sandbox);
    const reply = await km.customers('acme', 'sandbox', created.secret);
    assert.equal(reply.status, 403);
    assert.equal(errorCode(reply.json), 'insufficient_permissions');
  });

  test('records the last use of a key', async () => {
    const km = kmServer();
    const created = await create('acme', {
      name: 'last use',
      environment: 'production',
      access: 'full_access',
    });
    assert.equal(created.key.last_used_at, null);
    const before = Date.now();
    assert.equal((await km.customers('acme', 'production', created.secret)).status, 200);
    const key = (await km.admin('GET', `/tenants/acme/keys/${created.key.id}`)).json as ApiKeyMetadata;
    assert.ok(key.last_used_at !== null && Date.parse(key.last_used_at) >= before - 1000);
  });

  test('revokes a key: the API rejects it at once with invalid_api_key; revoking again changes nothing', async () => {
    const km = kmServer();
    const created = await create('acme', {
      name: 'to revoke',
      environment: 'production',
      access: 'full_access',
    });
    assert.equal((await km.customers('acme', 'production', created.secret)).status, 200);
    const revoked = await km.admin('POST', `/tenants/acme/keys/${created.key.id}/revoke`);
    assert.equal(revoked.status, 200);
    assert.equal((revoked.json as ApiKeyMetadata).revoked, true);
    const rejected = await km.customers('acme', 'production', created.secret);
    assert.equal(rejected.status, 401);
    assert.equal(errorCode(rejected.json), 'invalid_api_key');
    const again = await km.admin('POST', `/tenants/acme/keys/${created.key.id}/revoke`);
    assert.equal(again.status, 200);
    assert.equal((again.json as ApiKeyMetadata).revoked_at, (revoked.json as ApiKeyMetadata).revoked_at);
  });

  test('rotates a key: a new key with the same permissions works, the old one is rejected', async () => {
    const km = kmServer();
    const created = await create('acme', {
      name: 'to rotate',
      environment: 'production',
      access: 'read_only',
    });
    const reply = await km.admin('POST', `/tenants/acme/keys/${created.key.id}/rotate`);
    assert.equal(reply.status, 201, reply.body);
    const rotated = reply.json as RotatedKey;
    km.handedOut.push(rotated.secret);
    assert.ok(validatorFor('api-key-management.schema.json#/definitions/RotatedKey')(rotated));
    assert.notEqual(rotated.key.id, created.key.id);
    assert.equal(rotated.key.name, 'to rotate');
    assert.deepEqual(rotated.key.permissions, created.key.permissions);
    assert.equal(rotated.revoked_key.id, created.key.id);
    assert.equal(rotated.revoked_key.revoked, true);
    assert.equal((await km.customers('acme', 'production', rotated.secret)).status, 200);
    assert.equal(
      errorCode((await km.customers('acme', 'production', created.secret)).json),
      'invalid_api_key',
    );
    const again = await km.admin('POST', `/tenants/acme/keys/${created.key.id}/rotate`);
    assert.equal(again.status, 409);
    assert.equal(errorCode(again.json), 'key_revoked');
  });

  test('keeps tenants apart: a key id of one tenant is not found under another', async () => {
    const km = kmServer();
    const created = await create('globex', {
      name: 'globex key',
      environment: 'production',
      access: 'read_only',
    });
    for (const [method, path] of [
      ['GET', `/tenants/acme/keys/${created.key.id}`],
      ['POST', `/tenants/acme/keys/${created.key.id}/revoke`],
      ['POST', `/tenants/acme/keys/${created.key.id}/rotate`],
    ] as const) {
      const reply = await km.admin(method, path);
      assert.equal(reply.status, 404, path);
      assert.equal(errorCode(reply.json), 'key_not_found');
    }
    assert.equal((await km.customers('globex', 'production', created.secret)).status, 200);
  });

  test('answers a tenant whose feature is disabled, and an unknown tenant, with no keys', async () => {
    const km = kmServer();
    const disabled = await km.admin('POST', '/tenants/initech/keys', {
      name: 'x',
      environment: 'production',
      access: 'read_only',
    });
    assert.equal(disabled.status, 403);
    assert.equal(errorCode(disabled.json), 'api_keys_disabled');
    assert.equal(errorCode((await km.admin('GET', '/tenants/initech/keys')).json), 'api_keys_disabled');
    const unknown = await km.admin('GET', '/tenants/nosuch/keys');
    assert.equal(unknown.status, 404);
    assert.equal(errorCode(unknown.json), 'tenant_not_found');
  });

  test('refuses a bad request with what is wrong, and creates nothing', async () => {
    const km = kmServer();
    const countBefore = ((await km.admin('GET', '/tenants/acme/keys')).json as ApiKeyList).data.length;
    const cases: [unknown, string][] = [
      [{ environment: 'production', access: 'read_only' }, 'name'],
      [{ name: '   ', environment: 'production', access: 'read_only' }, 'name'],
      [{ name: 'x', environment: 'staging', access: 'read_only' }, 'environment'],
      [{ name: 'x', environment: 'production', access: 'custom' }, 'permissions'],
      [{ name: 'x', environment: 'production', access: 'custom', permissions: [] }, 'permissions'],
      [
        { name: 'x', environment: 'production', access: 'read_only', permissions: ['customers:read'] },
        'permissions',
      ],
      [{ name: 'x', environment: 'production', access: 'read_only', secret: FIXTURE_KEY }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const reply = await km.admin('POST', '/tenants/acme/keys', body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.equal(errorCode(reply.json), 'invalid_request');
      assert.match((reply.json as ErrorBody).error.message, new RegExp(field));
      assert.ok(!reply.body.includes(FIXTURE_KEY));
    }
    const notJson = await km.send({
      hostname: 'admin.localhost',
      method: 'POST',
      path: '/v1/tenants/acme/keys',
      headers: { Authorization: `Bearer ${km.adminToken}`, 'Content-Type': 'application/json' },
      body: '{"name":',
    });
    assert.equal(errorCode(JSON.parse(notJson.body)), 'invalid_json');
    const form = await km.send({
      hostname: 'admin.localhost',
      method: 'POST',
      path: '/v1/tenants/acme/keys',
      headers: {
        Authorization: `Bearer ${km.adminToken}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'name=x',
    });
    assert.equal(form.status, 415);
    const huge = await km.admin('POST', '/tenants/acme/keys', { name: 'x'.repeat(20_000) });
    assert.equal(huge.status, 413);
    assert.equal(((await km.admin('GET', '/tenants/acme/keys')).json as ApiKeyList).data.length, countBefore);
  });

  test('answers unknown paths 404 and wrong methods 405 with Allow', async () => {
    const km = kmServer();
    assert.equal((await km.admin('GET', '/nothing')).status, 404);
    const wrong = await km.admin('DELETE', '/tenants/acme/keys');
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.allow, 'GET, POST');
  });

  test('answers 421 when the TLS SNI and Host name different sites', async () => {
    const km = kmServer();
    for (const [hostname, servername] of [
      ['admin.localhost', 'acme.localhost'],
      ['acme.localhost', 'admin.localhost'],
      ['acme.localhost', 'globex.localhost'],
      ['acme.localhost', 'acme.api.localhost'],
    ]) {
      const reply = await km.send({
        hostname: hostname as string,
        servername,
        path: '/v1/tenants',
        headers: { Authorization: `Bearer ${km.adminToken}` },
      });
      assert.equal(reply.status, 421, `${hostname} over ${servername}`);
    }
  });
});

describe('admin API without a token', () => {
  test('is off, and says how to turn it on', async () => {
    const certDir = scratchDirectory('km-certs-');
    const server = await startReferenceServer({
      host: '127.0.0.1',
      httpsPort: 0,
      httpPort: null,
      domain: 'localhost',
      fixtures: loadFixtures(DEFAULT_FIXTURES_FILE),
      certDir,
    });
    try {
      const reply = await send(server.httpsPort, readFileSync(server.caPath, 'utf8'), {
        hostname: 'admin.localhost',
        path: '/v1/tenants',
        headers: { Authorization: 'Bearer anything-at-all-anything-at-all' },
      });
      assert.equal(reply.status, 404);
      assert.equal(errorCode(JSON.parse(reply.body)), 'admin_api_disabled');
    } finally {
      await server.close();
      rmSync(certDir, { recursive: true, force: true });
    }
  });
});
