// The reference server over HTTP/2: one TLS port offers h2 and http/1.1 by ALPN, and both reach the
// same pipeline, so every answer over HTTP/2 is the HTTP/1.1 answer — status, header fields (but
// those HTTP/2 does not have) and body. Where HTTP/2 names the host differently (:authority, a host
// field beside it, one connection for two hosts) the answer is the one HTTP/1.1's equivalent gets.
// The journal says which protocol each request came over; `http2: false` offers HTTP/1.1 alone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RawClient, type RawRequest } from '../../../conformance/requests/raw-client.ts';
import type { Exchange, ResponseExchange } from '../../../conformance/requests/exchange.ts';
import {
  hostOf,
  LOOPBACK,
  secretOf,
  sendRaw,
  startTestServer,
  testServerPerSuite,
  type TestServer,
} from '../../support/reference-client.ts';

const ADMIN_TOKEN = `test_${randomBytes(32).toString('base64url')}`;
const HOSTS = { '*.localhost': LOOPBACK };
/** Fields one protocol has and the other has not (RFC 9113 §8.2.2), and the date. */
const NOT_COMPARED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function answered(exchange: Exchange): ResponseExchange {
  assert.equal(exchange.kind, 'response', exchange.kind === 'failure' ? exchange.error : '');
  return exchange;
}

function comparable(exchange: Exchange): { status: number; headers: Record<string, string>; body: string } {
  const { status, headers, bodyText } = answered(exchange);
  const kept = Object.entries(headers).filter(([name]) => !NOT_COMPARED.has(name));
  return { status, headers: Object.fromEntries(kept), body: bodyText };
}

describe('the reference server over HTTP/2', () => {
  let target: TestServer;
  let h1: RawClient;
  let h2: RawClient;
  let base: (tenant: string) => string;
  let key: (id: string) => string;
  before(async () => {
    target = await startTestServer({ adminToken: ADMIN_TOKEN });
    const caFile = join(target.certDir, 'ca-for-clients.pem');
    writeFileSync(caFile, target.ca);
    h1 = new RawClient({ hosts: HOSTS, caFile, protocol: 'h1' });
    h2 = h1.withProtocol('h2');
    base = (tenant) => target.server.baseUrl(tenant);
    key = (id) => secretOf(target.fixtures, id);
  });
  after(() => target.close());

  test('answers every API request over HTTP/2 exactly as over HTTP/1.1', async () => {
    const acme = `${base('acme')}/customers`;
    const bearer = (id: string): [string, string] => ['Authorization', `Bearer ${key(id)}`];
    const requests: Record<string, RawRequest> = {
      'valid key': { url: acme, headers: [bearer('key_acme_prod_full')] },
      'valid key, HEAD': { url: acme, method: 'HEAD', headers: [bearer('key_acme_prod_read')] },
      'sandbox key on the sandbox host': {
        url: `${target.server.baseUrl('acme', 'sandbox')}/customers`,
        headers: [bearer('key_acme_dev_read')],
      },
      'no Authorization': { url: acme },
      'Basic scheme': { url: acme, headers: [['Authorization', 'Basic dXNlcjpwYXNz']] },
      'quoted key': { url: acme, headers: [['Authorization', `Bearer "${key('key_acme_prod_full')}"`]] },
      'two Authorization fields': {
        url: acme,
        headers: [bearer('key_acme_prod_full'), bearer('key_acme_prod_read')],
      },
      'revoked key': { url: acme, headers: [bearer('key_acme_prod_revoked')] },
      "another tenant's key": { url: acme, headers: [bearer('key_globex_prod_full')] },
      'key without the permission': { url: acme, headers: [bearer('key_acme_prod_no_customers')] },
      'unknown path': { url: `${base('acme')}/orders`, headers: [bearer('key_acme_prod_full')] },
      'method not allowed': { url: acme, method: 'DELETE', headers: [bearer('key_acme_prod_full')] },
      'Host of another tenant than the SNI': {
        url: acme,
        hostHeader: `${hostOf('globex')}:${new URL(acme).port}`,
      },
      'unknown tenant': { url: `${base('initech').replace('initech', 'nosuch')}/customers` },
      'URL too long': { url: `${acme}?q=${'a'.repeat(8300)}` },
    };
    for (const [name, request] of Object.entries(requests)) {
      const overH1 = await h1.send(request);
      const overH2 = await h2.send(request);
      assert.equal(overH2.request.protocol, 'h2', name);
      assert.deepEqual(comparable(overH2), comparable(overH1), `${name}: the same answer over both`);
    }
  });

  test(':authority and a host field: the same host is one, two hosts are 400 with no data', async () => {
    const acme = `${base('acme')}/customers`;
    const port = new URL(acme).port;
    const headers: [string, string][] = [['Authorization', `Bearer ${key('key_acme_prod_full')}`]];
    const same = await h2.send({ url: acme, hostField: `${hostOf('acme')}:${port}`, headers });
    assert.equal(answered(same).status, 200);
    const sameWithoutPort = await h2.send({ url: acme, hostField: hostOf('acme'), headers });
    assert.equal(answered(sameWithoutPort).status, 200);
    const conflict = answered(
      await h2.send({ url: acme, hostField: `${hostOf('globex')}:${port}`, headers }),
    );
    assert.equal(conflict.status, 400);
    assert.doesNotMatch(conflict.bodyText, /cus_/);
  });

  test('one connection for two tenants: a request for the second is 421, whoever the key', async () => {
    const exchanges = await h2.sendOverOneConnection([
      {
        url: `${base('acme')}/customers`,
        headers: [['Authorization', `Bearer ${key('key_acme_prod_full')}`]],
      },
      {
        url: `${base('globex')}/customers`,
        headers: [['Authorization', `Bearer ${key('key_globex_prod_full')}`]],
      },
      {
        url: `${base('globex')}/customers`,
        headers: [['Authorization', `Bearer ${key('key_acme_prod_full')}`]],
      },
    ]);
    assert.deepEqual(
      exchanges.map((exchange) => answered(exchange).status),
      [200, 421, 421],
    );
  });

  test('an HTTP/1.1 request line that claims HTTP/2.0 is answered as HTTP/1.1, and the server stays up', async () => {
    const claimed = await sendRaw(
      target,
      `GET /v1/customers HTTP/2.0\r\nHost: ${hostOf('acme')}\r\nConnection: close\r\n\r\n`,
      { servername: hostOf('acme') },
    );
    assert.ok(claimed.status >= 400 && claimed.status < 500, `a client error, got ${claimed.status}`);
    const after = await h2.send({
      url: `${base('acme')}/customers`,
      headers: [['Authorization', `Bearer ${key('key_acme_prod_full')}`]],
    });
    assert.equal(answered(after).status, 200);
  });

  test('the journal records the protocol of each request', async () => {
    await h2.send({ url: `${base('globex')}/customers`, headers: [['User-Agent', 'journal-h2-probe']] });
    await h1.send({ url: `${base('globex')}/customers`, headers: [['User-Agent', 'journal-h1-probe']] });
    const journal = answered(
      await h2.send({
        url: `${target.server.adminBaseUrl}/journal?tenant=globex`,
        headers: [['Authorization', `Bearer ${ADMIN_TOKEN}`]],
      }),
    );
    const entries = (JSON.parse(journal.bodyText) as { data: { userAgent?: string; protocol?: string }[] })
      .data;
    const protocolOf = (agent: string) => entries.find((entry) => entry.userAgent === agent)?.protocol;
    assert.equal(protocolOf('journal-h2-probe'), 'h2');
    assert.equal(protocolOf('journal-h1-probe'), 'h1');
  });
});

describe('the reference server with HTTP/2 off', () => {
  const target = testServerPerSuite({ http2: false });

  test('offers HTTP/1.1 alone by ALPN, and serves it', async () => {
    const caFile = join(target().certDir, 'ca-for-clients.pem');
    writeFileSync(caFile, target().ca);
    const client = new RawClient({ hosts: HOSTS, caFile, protocol: 'h1' });
    assert.equal(await client.agreesToHttp2(target().server.baseUrl('acme')), false);
    const exchange = await client.send({
      url: `${target().server.baseUrl('acme')}/customers`,
      headers: [['Authorization', `Bearer ${secretOf(target().fixtures, 'key_acme_prod_full')}`]],
    });
    assert.equal(answered(exchange).status, 200);
  });
});
