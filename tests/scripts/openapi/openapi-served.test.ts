// The reference server serves docs/openapi.json at https://admin.{domain}/openapi.json to anyone,
// with or without the admin API, and that weakens nothing: the tenant API hosts still answer 401
// without a key (also for that path), and the admin API still needs its token.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminHostname } from '../../../reference-server/http/hosts.ts';
import { OPENAPI_PATH, openApiUrl } from '../../../reference-server/admin-api/openapi-document.ts';
import { assertErrorReply } from '../../support/reference-assertions.ts';
import { keyManagementServerPerSuite } from '../../support/key-management-client.ts';
import { readOpenApiDocument } from '../../support/openapi-validator.ts';
import { DOMAIN, hostOf, send, testServerPerSuite } from '../../support/reference-client.ts';

const ADMIN_HOST = adminHostname(DOMAIN);

/** docs/openapi.json as served to a client that named `domain` (with its port) in `Host`. */
function servedAs(domain: string): unknown {
  const document = readOpenApiDocument() as {
    servers: Array<{ variables: { domain: { default: string } } }>;
  };
  for (const server of document.servers) server.variables.domain.default = domain;
  return document;
}

describe('the OpenAPI document, served on the admin host', () => {
  // Started without an admin token: the admin API is off, the document is still served.
  const target = testServerPerSuite();

  test('GET without any key or token: 200, docs/openapi.json naming the domain and port it was reached on', async () => {
    const port = target().server.httpsPort;
    const cases = [
      { host: `${ADMIN_HOST}:${port}`, path: OPENAPI_PATH, domain: `${DOMAIN}:${port}` },
      { host: ADMIN_HOST, path: `${OPENAPI_PATH}?format=json`, domain: DOMAIN },
      { host: `${ADMIN_HOST.toUpperCase()}:${port}`, path: OPENAPI_PATH, domain: `${DOMAIN}:${port}` },
    ];
    for (const { host, path, domain } of cases) {
      const reply = await send(target(), { host, servername: ADMIN_HOST, path });
      assert.equal(reply.status, 200, reply.body);
      assert.match(reply.headers['content-type'] ?? '', /^application\/json(;|$)/);
      assert.equal(reply.headers['access-control-allow-origin'], '*');
      assert.deepEqual(JSON.parse(reply.body), servedAs(domain));
    }
    // A port the listener does not listen on is misdirected, here as on every host.
    const elsewhere = await send(target(), {
      host: `${ADMIN_HOST}:443`,
      servername: ADMIN_HOST,
      path: OPENAPI_PATH,
    });
    assert.equal(elsewhere.status, 421, elsewhere.body);
    // Everything but the default of `{domain}` is the committed file.
    assert.deepEqual(servedAs('localhost:8443'), readOpenApiDocument());
  });

  test('HEAD: the headers of GET, no content; other methods: 405 with Allow', async () => {
    const get = await send(target(), { host: ADMIN_HOST, path: OPENAPI_PATH });
    const head = await send(target(), { host: ADMIN_HOST, path: OPENAPI_PATH, method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-length'], get.headers['content-length']);
    const post = await send(target(), { host: ADMIN_HOST, path: OPENAPI_PATH, method: 'POST', body: '{}' });
    assertErrorReply(post, { status: 405, code: 'method_not_allowed' }, target().fixtures);
    assert.equal(post.headers.allow, 'GET, HEAD');
  });

  test('the URL the banner prints is the one that serves it', () => {
    assert.equal(
      openApiUrl(DOMAIN, target().server.httpsPort),
      `https://${ADMIN_HOST}:${target().server.httpsPort}${OPENAPI_PATH}`,
    );
  });

  test('a tenant API host still answers 401 without a key, for that path too', async () => {
    for (const environment of ['production', 'sandbox'] as const) {
      for (const path of [OPENAPI_PATH, `/v1${OPENAPI_PATH}`, '/v1/customers']) {
        const reply = await send(target(), { host: hostOf('acme', environment), path });
        assertErrorReply(
          reply,
          { status: 401, code: 'missing_authorization_header', challenge: 'realm' },
          target().fixtures,
        );
      }
    }
  });

  test('the rest of the admin host stays off', async () => {
    const reply = await send(target(), { host: ADMIN_HOST, path: '/v1/tenants' });
    assertErrorReply(reply, { status: 404, code: 'admin_api_disabled' }, target().fixtures);
  });
});

describe('the OpenAPI document, with the admin API on', () => {
  const kmServer = keyManagementServerPerSuite();

  test('is served without the admin token, while every admin endpoint still needs it', async () => {
    const km = kmServer();
    const document = await km.send({ hostname: ADMIN_HOST, path: OPENAPI_PATH });
    assert.equal(document.status, 200);
    assert.deepEqual(JSON.parse(document.body), servedAs(`${DOMAIN}:${km.server.httpsPort}`));
    for (const path of ['/v1/tenants', '/v1/tenants/acme/keys', `/v1${OPENAPI_PATH}`]) {
      const reply = await km.send({ hostname: ADMIN_HOST, path });
      assert.equal(reply.status, 401, `${path}: ${reply.body}`);
      assert.equal(reply.headers['www-authenticate'], 'Bearer realm="admin"');
    }
  });
});
