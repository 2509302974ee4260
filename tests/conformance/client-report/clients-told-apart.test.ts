// How the client report tells clients apart from the journal: by user agent, protocol and key id,
// an unknown key by a fingerprint and never the key itself, and each finding told as it was on the
// wire (a key sent twice or folded over HTTP/2, the SNI name beside the Host or :authority).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientReport, ClientResult } from '../../../schemas/generated/client-report.ts';
import { Agent, request } from 'undici';
import { hostOf, LOOPBACK, secretOf, send } from '../../support/reference-client.ts';
import { FAULTY_CLIENTS } from './faulty-clients.ts';
import { clientReportPerSuite } from '../../support/client-report-suite.ts';

/** The one client of the report whose user agent is `userAgent`. */
function clientOf(json: ClientReport | undefined, userAgent: string): ClientResult {
  const clients = json?.clients.filter((client) => client.userAgent === userAgent) ?? [];
  assert.equal(clients.length, 1, `one client ${userAgent}: ${JSON.stringify(json?.clients)}`);
  return clients[0] as ClientResult;
}

function flaggedOf(client: ClientResult): ClientResult['rules'] {
  return client.rules.filter((rule) => rule.verdict === 'fail' || rule.verdict === 'warning');
}

describe('client report: clients told apart', () => {
  const suite = clientReportPerSuite();
  const { admin, report } = suite;

  test('one library over HTTP/1.1 and over HTTP/2 with one key is two clients, told apart by protocol', async () => {
    const target = suite.target();
    const reportsDir = suite.reportsDir();
    await admin('DELETE', '/journal');
    const key = secretOf(target.fixtures, 'key_acme_prod_read');
    const lines = [
      ['User-Agent', 'sdk-both-protocols'],
      ['Authorization', `Bearer ${key}`],
      ['Accept', 'application/json'],
    ] as const;
    await send(target, { headers: lines });
    await send(target, { headers: lines });
    await send(target, { http2: true, headers: lines });
    const { json, out } = await report();
    const clients = json?.clients.filter((client) => client.userAgent === 'sdk-both-protocols') ?? [];
    assert.deepEqual(clients.map((client) => [client.key, client.protocol, client.requests]).sort(), [
      ['key_acme_prod_read', 'h1', 2],
      ['key_acme_prod_read', 'h2', 1],
    ]);
    assert.match(out, /key_acme_prod_read · sdk-both-protocols · HTTP\/1\.x/);
    assert.match(out, /key_acme_prod_read · sdk-both-protocols · HTTP\/2/);
    assert.match(readFileSync(join(reportsDir, 'client-report.md'), 'utf8'), /sdk-both-protocols · HTTP\/2/);
  });

  test('undici, a real client, over HTTP/1.1 and HTTP/2: two clients; its key sent twice (folded over HTTP/2) one finding each; X-Organization-Id found over both', async () => {
    const target = suite.target();
    await admin('DELETE', '/journal');
    const key = secretOf(target.fixtures, 'key_acme_prod_read');
    const url = `https://${hostOf('acme')}:${target.server.httpsPort}/v1/customers`;
    for (const allowH2 of [false, true]) {
      // Node resolves no *.localhost: the tenant host is looked up as loopback, SNI and Host stay its name.
      const dispatcher = new Agent({
        allowH2,
        connect: {
          ca: target.ca,
          lookup: (_host, _options, callback) => callback(null, [{ address: LOOPBACK, family: 4 }]),
        },
      });
      for (const lines of [
        ['authorization', `Bearer ${key}`, 'authorization', `Bearer ${key}`],
        ['authorization', `Bearer ${key}`, 'X-Organization-Id', 'acme'],
      ]) {
        const answer = await request(url, {
          dispatcher,
          headers: ['user-agent', 'undici-sdk', 'accept', 'application/json', ...lines],
        });
        await answer.body.text();
      }
      await dispatcher.close();
    }
    const { json } = await report();
    const clients = json?.clients.filter((client) => client.userAgent === 'undici-sdk') ?? [];
    assert.deepEqual(clients.map((client) => [client.key, client.protocol, client.requests]).sort(), [
      ['key_acme_prod_read', 'h1', 2],
      ['key_acme_prod_read', 'h2', 2],
    ]);
    for (const client of clients) {
      assert.deepEqual(
        flaggedOf(client).map((rule) => rule.id),
        ['CLIENT-AUTH-WELL-FORMED', 'CLIENT-NO-TENANT-FIELDS'],
        JSON.stringify(flaggedOf(client)),
      );
      assert.match(
        client.rules.find((rule) => rule.id === 'CLIENT-NO-TENANT-FIELDS')?.message ?? '',
        /header:x-organization-id/,
      );
    }
  });

  test('a valid key sent twice, in two fields or folded into one over HTTP/2, names the client by its key id: one finding', async () => {
    const target = suite.target();
    await admin('DELETE', '/journal');
    for (const userAgent of ['faulty-two-authorization-headers', 'faulty-h2-folded-authorization']) {
      await FAULTY_CLIENTS.find((client) => client.userAgent === userAgent)?.run(target);
    }
    const { json } = await report();
    const twice = clientOf(json, 'faulty-two-authorization-headers');
    assert.equal(twice.key, 'key_acme_prod_read');
    assert.deepEqual(
      flaggedOf(twice).map((rule) => [rule.id, rule.message]),
      [['CLIENT-AUTH-WELL-FORMED', '1 of 1 requests: more than one Authorization header.']],
    );
    const folded = clientOf(json, 'faulty-h2-folded-authorization');
    assert.equal(folded.key, 'key_acme_prod_read');
    assert.equal(folded.keyFingerprint, undefined);
    assert.equal(folded.protocol, 'h2');
    assert.deepEqual(
      flaggedOf(folded).map((rule) => [rule.id, rule.message]),
      [
        [
          'CLIENT-AUTH-WELL-FORMED',
          '1 of 1 requests: several Bearer credentials folded into one Authorization field (Bearer K, Bearer K).',
        ],
      ],
    );
    assert.equal(
      folded.rules.find((rule) => rule.id === 'CLIENT-KEY-KNOWN')?.verdict,
      'pass',
      'the key is known: no "unknown key" finding',
    );
  });

  test('a wrong SNI over HTTP/2 is told as it was on the wire: the SNI name and the :authority', async () => {
    const target = suite.target();
    await admin('DELETE', '/journal');
    await FAULTY_CLIENTS.find((client) => client.userAgent === 'faulty-h2-wrong-sni')?.run(target);
    await send(target, {
      servername: hostOf('globex'),
      headers: [
        ['User-Agent', 'faulty-h1-wrong-sni'],
        ['Authorization', `Bearer ${secretOf(target.fixtures, 'key_acme_prod_read')}`],
      ],
    });
    const { json } = await report();
    const sni = (userAgent: string): string | undefined =>
      clientOf(json, userAgent).rules.find((rule) => rule.id === 'CLIENT-TLS-SNI')?.message;
    assert.equal(
      sni('faulty-h2-wrong-sni'),
      "1 of 1 requests: the connection's SNI globex.api.localhost named another host than the :authority acme.api.localhost.",
    );
    assert.equal(
      sni('faulty-h1-wrong-sni'),
      "1 of 1 requests: the connection's SNI globex.api.localhost named another host than the Host header acme.api.localhost.",
    );
  });

  test("a garbage key and another tenant's key are two clients, told apart by a fingerprint, never the key", async () => {
    const target = suite.target();
    const reportsDir = suite.reportsDir();
    await admin('DELETE', '/journal');
    const garbage = `mbk_prod_${randomBytes(24).toString('base64url')}`;
    const otherTenant = secretOf(target.fixtures, 'key_globex_prod_read');
    for (const [key, http2] of [
      [garbage, false],
      [otherTenant, false],
      [garbage, true],
      [otherTenant, true],
    ] as const) {
      await send(target, {
        http2,
        headers: [
          ['User-Agent', 'sdk-unknown-keys'],
          ['Authorization', `Bearer ${key}`],
          ['Accept', 'application/json'],
        ],
      });
    }
    const { json, out } = await report();
    const clients = json?.clients.filter((client) => client.userAgent === 'sdk-unknown-keys') ?? [];
    assert.equal(clients.length, 4, JSON.stringify(clients));
    assert.ok(
      clients.every(
        (client) => client.key === 'unknown key' && /^[0-9a-f]{12}$/.test(client.keyFingerprint ?? ''),
      ),
    );
    const fingerprints = (protocol: string): Set<string | undefined> =>
      new Set(
        clients.filter((client) => client.protocol === protocol).map((client) => client.keyFingerprint),
      );
    assert.equal(fingerprints('h1').size, 2, 'two keys, two fingerprints');
    assert.deepEqual(fingerprints('h1'), fingerprints('h2'), 'the same key, the same fingerprint');
    const files = readdirSync(reportsDir).map((name) => readFileSync(join(reportsDir, name), 'utf8'));
    for (const text of [out, ...files]) {
      assert.ok(!text.includes(garbage) && !text.includes(otherTenant), 'a key was shown');
      for (const fingerprint of fingerprints('h1')) assert.ok(text.includes(fingerprint ?? '?'));
    }
  });
});
