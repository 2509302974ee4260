// Defects on shapes the reference server does not have, to prove that the suite catches them by
// the rules written for them, and fails nothing else that is not a consequence of the defect:
//
// - the independent implementation with a plain-HTTP listener whose app was written for a
//   TLS-terminating proxy and trusts X-Forwarded-Proto (server.ts, `trusts-forwarded-proto`);
// - the independent implementation whose plain-HTTP port is an HTTP/2-only backend (h2c) that
//   takes every request for one a TLS front passed on (server.ts, `serves-h2c`);
// - the independent implementation that keeps a session beside the API key: a served answer sets
//   a `sid` cookie, which then authenticates without Authorization on any tenant's host
//   (server.ts, `cookies: 'session'`);
// - the independent implementation behind a shared caching front that keys its cache on the Host
//   name and the URL and ignores Authorization (host-front.ts, `cacheByHostAndUrl`).
//
// A direct request first shows each defect, so that a verdict is about that defect.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as http2Connect } from 'node:http2';
import { batchOfDeployments } from '../support/batched-runs.ts';
import { startHostFront } from './host-front.ts';
import { writeIndependentTarget } from './independent-target.ts';
import { startIndependentServer, type IndependentServer } from './server.ts';
import { assertNotConformant, probe, type ProbeAnswer } from './run-support.ts';

const ACME = 'acme.api.localhost';
const bearer = (key: string): [string, string] => ['Authorization', `Bearer ${key}`];

/** The deployments, checked in one batch (tests/support/batched-runs.ts). */
const batch = batchOfDeployments();

describe('a plain-HTTP port that serves HTTP/2 without TLS (h2c, prior knowledge)', () => {
  const deployed = batch.add('serves-h2c', async () => {
    const server = await startIndependentServer({ plainHttp: 'serves-h2c' });
    return { server, target: await writeIndependentTarget(server), close: () => server.close() };
  });
  const serverOf = (): IndependentServer => deployed().server;

  test('HTTP/2 by prior knowledge with a valid key is served on the plain port', async () => {
    const session = http2Connect(`http://127.0.0.1:${serverOf().plainHttpPort ?? 0}`);
    try {
      const stream = session.request({
        ':path': '/v1/customers',
        ':authority': ACME,
        authorization: `Bearer ${serverOf().keys.acmeLiveProbe}`,
      });
      const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
      let body = '';
      for await (const chunk of stream) body += String(chunk);
      assert.equal(headers[':status'], 200);
      assert.match(body, /"customers"/);
    } finally {
      session.destroy();
    }
  });

  test('NOT CONFORMANT by TRANSPORT-PLAIN-HTTP-H2C-REJECTED alone', () => {
    const { run } = deployed();
    // HTTP/1.1 on that port gets no answer an HTTP/1.1 client can read: a refusal, which passes.
    assertNotConformant(run, { 'TRANSPORT-PLAIN-HTTP-H2C-REJECTED': 'fail' });
    const result = run.report?.rules.find((rule) => rule.id === 'TRANSPORT-PLAIN-HTTP-H2C-REJECTED');
    assert.match(result?.message ?? '', /prior knowledge/);
    // Every probe of the rule was sent and recorded: Upgrade and prior knowledge, with and without a key.
    const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as {
      log: { entries: { _rule: string }[] };
    };
    const probes = har.log.entries.filter((entry) =>
      entry._rule.includes('TRANSPORT-PLAIN-HTTP-H2C-REJECTED'),
    );
    assert.equal(probes.length, 4);
  });
});

describe('a session cookie beside the API key: a served answer sets sid, which then authenticates alone on any host', () => {
  const deployed = batch.add('session-cookie', async () => {
    const server = await startIndependentServer({ cookies: 'session' });
    return { server, target: await writeIndependentTarget(server), close: () => server.close() };
  });
  const serverOf = (): IndependentServer => deployed().server;

  test('shown by direct requests: the sid of a served answer, without Authorization, gets acme’s list on globex’s host', async () => {
    const served = await probe({
      port: serverOf().port,
      ca: serverOf().caPem,
      host: ACME,
      headers: [bearer(serverOf().keys.acmeLiveFull)],
    });
    const setCookie = String(served.headers['set-cookie'] ?? '');
    const sid = /sid=([^;]+)/.exec(setCookie)?.[1] ?? '';
    assert.notEqual(sid, '');
    const elsewhere = await probe({
      port: serverOf().port,
      ca: serverOf().caPem,
      host: 'globex.api.localhost',
      headers: [['Cookie', `sid=${sid}`]],
    });
    assert.equal(elsewhere.status, 200);
    assert.equal(elsewhere.body, served.body, "acme's list, on globex's host");
  });

  test('NOT CONFORMANT by AUTH-COOKIE-NOT-CREDENTIAL alone, on both hosts', () => {
    const { run } = deployed();
    assertNotConformant(run, { 'AUTH-COOKIE-NOT-CREDENTIAL': 'fail' });
    const result = run.report?.rules.find((rule) => rule.id === 'AUTH-COOKIE-NOT-CREDENTIAL');
    assert.match(result?.message ?? '', /\(sid\) sent back without Authorization: the answer holds data/);
    assert.match(
      result?.message ?? '',
      /on the other tenant's host: the answer holds data of the tenant under test/,
    );
    assert.equal(result?.evidence?.length, 2);
    // The cookie the rule sent is in its evidence, as it went on the wire.
    assert.ok(
      result?.evidence?.every((evidence) =>
        evidence.requestHeaders?.some(({ name, value }) => name === 'Cookie' && value.startsWith('sid=')),
      ),
    );
  });
});

describe('a plain-HTTP listener whose app trusts X-Forwarded-Proto (written for a proxy)', () => {
  const deployed = batch.add('trusts-forwarded-proto', async () => {
    const server = await startIndependentServer({ plainHttp: 'trusts-forwarded-proto' });
    return { server, target: await writeIndependentTarget(server), close: () => server.close() };
  });
  const serverOf = (): IndependentServer => deployed().server;

  test('plain HTTP with a valid key is refused, and served as soon as X-Forwarded-Proto says https', async () => {
    const plain = (headers: [string, string][]) =>
      probe({
        port: serverOf().plainHttpPort ?? 0,
        host: ACME,
        headers: [bearer(serverOf().keys.acmeLiveProbe), ...headers],
      });
    const refused = await plain([]);
    assert.deepEqual([refused.status, refused.code], [403, 'https_required']);
    const served = await plain([['X-Forwarded-Proto', 'https']]);
    assert.equal(served.status, 200);
    assert.match(served.body, /"customers"/);
    // Only that header: the others of the rule name nothing Fastify reads.
    const forwarded = await plain([['Forwarded', 'proto=https']]);
    assert.equal(forwarded.status, 403);
  });

  test('NOT CONFORMANT by TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED alone', () => {
    const { run } = deployed();
    // TRANSPORT-PLAIN-HTTP-KEY-REJECTED sends the same key without the header: refused, a pass.
    assertNotConformant(run, { 'TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED': 'fail' });
    const result = run.report?.rules.find(
      (rule) => rule.id === 'TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED',
    );
    assert.match(result?.message ?? '', /X-Forwarded-Proto: https/);
  });
});

/**
 * Against a warm caching front (every base URL's customers served once before the run, as in
 * production), the failures do not depend on the order of the rules:
 * - TENANT-CACHED-ANSWER-NOT-SHARED: the rule written for this defect;
 * - every rule whose refused request is a GET of exactly {base_url}/customers (acme's, or the
 *   sandbox's for ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED): the cache answers the stored 200 with
 *   acme's customers instead of the refusal (the HTTP ones, which check the 401/403, warn);
 * - TENANT-SNI-HOST-MISMATCH-NO-DATA: acme's key on a connection opened for acme with
 *   `Host: globex…` gets the 200 stored for globex's URL; the front answers that mismatch without
 *   421 (TENANT-SNI-HOST-MISMATCH-421 warns, as it does behind the front without a cache).
 * - every rule that sends a request without Authorization to that URL and asks something else of
 *   its answer (TRANSPORT-HSTS, ERROR-BODY-SHAPE, ERROR-NO-STORE, VERSION-PATH): the cached 200
 *   holds acme's customers, and a keyless request that gets data fails whatever rule sent it (the
 *   advisory ones warn); the request that learns the tenants' data meets it first (AUTH-MISSING-HEADER).
 * Rules whose requests carry a query, or go to a host nothing was served on, or whose refused and
 * served answers both become the cached 200 (TENANT-CROSS-KEY-INDISTINGUISHABLE), pass.
 */
const CACHING_FRONT_VERDICTS = {
  'TENANT-CACHED-ANSWER-NOT-SHARED': 'fail',
  'AUTH-MISSING-HEADER': 'fail',
  'AUTH-MISSING-HEADER-401': 'warning',
  'AUTH-OTHER-SCHEME-REJECTED': 'fail',
  'AUTH-QUOTED-KEY-REJECTED': 'fail',
  'AUTH-MALFORMED-BEARER-REJECTED': 'fail',
  'AUTH-BEARER-SYNTAX-REJECTED': 'warning',
  'AUTH-DUPLICATE-HEADER-REJECTED': 'fail',
  'KEY-UNKNOWN-REJECTED': 'fail',
  'KEY-ALTERED-REJECTED': 'fail',
  'KEY-REVOKED-REJECTED': 'fail',
  'KEY-INVALID-401': 'warning',
  'TENANT-CROSS-KEY-REJECTED': 'fail',
  'ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED': 'fail',
  'ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED': 'fail',
  'PERM-INSUFFICIENT-REJECTED': 'fail',
  'PERM-INSUFFICIENT-403': 'warning',
  'TENANT-SNI-HOST-MISMATCH-NO-DATA': 'fail',
  'TENANT-SNI-HOST-MISMATCH-421': 'warning',
  'TRANSPORT-HSTS': 'warning',
  'ERROR-BODY-SHAPE': 'fail',
  'ERROR-NO-STORE': 'warning',
  'VERSION-PATH': 'fail',
} as const;

describe('a shared caching front keyed on Host and URL, Authorization ignored', () => {
  const deployed = batch.add('caching-front', async () => {
    const server = await startIndependentServer();
    const front = await startHostFront({
      upstreamPort: server.port,
      upstreamCa: server.caPem,
      cacheByHostAndUrl: true,
    });
    const get = (host: string, headers: [string, string][] = []): Promise<ProbeAnswer> =>
      probe({ port: front.port, ca: front.caPem, host, headers });
    // Warm the cache for every base URL of the target, each with its own key; then a keyless
    // request, before the run as a user's would be.
    const warmed = [
      await get(ACME, [bearer(server.keys.acmeLiveFull)]),
      await get('globex.api.localhost', [bearer(server.keys.globexLiveFull)]),
      await get('acme.sandbox.api.localhost', [bearer(server.keys.acmeTestFull)]),
    ];
    const keyless = await get(ACME);
    const target = await writeIndependentTarget(server, {
      ...front,
      name: 'independent implementation behind a caching front',
    });
    return {
      warmed,
      keyless,
      target,
      close: async () => {
        await front.close();
        await server.close();
      },
    };
  });

  test('a keyless request gets the 200 the front stored for a valid key', () => {
    const { warmed, keyless } = deployed();
    assert.deepEqual(
      warmed.map((answer) => answer.status),
      [200, 200, 200],
    );
    assert.deepEqual(keyless, warmed[0]);
  });

  test('NOT CONFORMANT by TENANT-CACHED-ANSWER-NOT-SHARED and the rules refused on the cached URLs', () => {
    assertNotConformant(deployed().run, CACHING_FRONT_VERDICTS);
  });
});
