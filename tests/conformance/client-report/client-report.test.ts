// The client report end to end: faulty clients against the reference server, each caught by
// exactly its rule; the example client judged CLIENT CONFORMANT; no key anywhere in what the
// journal, the admin API, the console or the report files show.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientReport, ClientResult } from '../../../schemas/generated/client-report.ts';
import { CLIENT_RULES } from '../../../conformance/catalog/client-rules.ts';
import type { Journal } from '../../../schemas/generated/journal.ts';
import { validatorFor } from '../../../schemas/validators.ts';
import { clientReport, EXIT } from '../../../conformance/client-report/client-report.ts';
import { listCustomers, USER_AGENT } from '../../../examples/client.ts';
import { Agent, request } from 'undici';
import {
  allSecrets,
  hostOf,
  LOOPBACK,
  secretOf,
  send,
  startTestServer,
  type TestServer,
} from '../../support/reference-client.ts';
import { FAULTY_CLIENTS } from './faulty-clients.ts';

const ADMIN_TOKEN = `test_${randomBytes(32).toString('base64url')}`;

describe('client report', () => {
  let target: TestServer;
  let reportsDir: string;
  before(async () => {
    target = await startTestServer({ adminToken: ADMIN_TOKEN });
    reportsDir = mkdtempSync(join(tmpdir(), 'client-report-'));
  });
  after(async () => {
    await target.close();
    rmSync(reportsDir, { recursive: true, force: true });
  });

  async function admin(method: string, path: string): Promise<{ status: number; body: string }> {
    return send(target, {
      host: `admin.localhost`,
      method,
      path: `/v1${path}`,
      headers: [['Authorization', `Bearer ${ADMIN_TOKEN}`]],
    });
  }

  async function report(
    ...argv: string[]
  ): Promise<{ code: number; out: string; err: string; json?: ClientReport }> {
    let out = '';
    let err = '';
    const code = await clientReport(
      [
        '--admin-url',
        target.server.adminBaseUrl,
        '--ca',
        target.server.caPath,
        '--reports',
        reportsDir,
        ...argv,
      ],
      {
        env: { REFERENCE_ADMIN_TOKEN: ADMIN_TOKEN },
        out: (text) => (out += text),
        err: (text) => (err += text),
      },
    );
    const file = join(reportsDir, 'client-report.json');
    const json = code <= 1 ? (JSON.parse(readFileSync(file, 'utf8')) as ClientReport) : undefined;
    return { code, out, err, ...(json ? { json } : {}) };
  }

  test('each faulty client is caught by exactly its rule, and the window is NOT CONFORMANT', async () => {
    assert.equal((await admin('DELETE', '/journal')).status, 200);
    for (const client of FAULTY_CLIENTS) await client.run(target);
    const { code, json, out } = await report();
    assert.equal(code, EXIT.notConformant, out);
    assert.ok(json);
    assert.ok(validatorFor<ClientReport>('client-report.schema.json')(json), 'the report matches its schema');
    assert.equal(json.verdict, 'CLIENT NOT CONFORMANT');
    const judged: readonly ClientResult[] = json.clients;
    for (const faulty of FAULTY_CLIENTS) {
      const clients = judged.filter((client) => client.userAgent === faulty.userAgent);
      assert.equal(clients.length, 1, `one client ${faulty.userAgent}`);
      const flagged = clients[0]?.rules.filter(
        (rule) => rule.verdict === 'fail' || rule.verdict === 'warning',
      );
      assert.deepEqual(
        flagged?.map((rule) => rule.id).sort(),
        [...faulty.caughtBy].sort(),
        `${faulty.userAgent}: ${JSON.stringify(flagged)}`,
      );
      const mustBroken = faulty.caughtBy.some(
        (id) => CLIENT_RULES.find((rule) => rule.id === id)?.level === 'MUST',
      );
      assert.equal(
        clients[0]?.verdict,
        mustBroken ? 'CLIENT NOT CONFORMANT' : 'CLIENT CONFORMANT',
        faulty.userAgent,
      );
    }
    // The Markdown and JUnit reports say the same as the JSON one.
    const fails = judged.flatMap((client) => client.rules).filter((rule) => rule.verdict === 'fail').length;
    const junit = readFileSync(join(reportsDir, 'client-junit.xml'), 'utf8');
    assert.equal(junit.match(/<failure/g)?.length, fails);
    assert.equal(junit.match(/<testsuite /g)?.length, judged.length);
    assert.match(
      readFileSync(join(reportsDir, 'client-report.md'), 'utf8'),
      /\*\*Verdict: CLIENT NOT CONFORMANT\*\*/,
    );
    // Every request was recorded, and none was attributed to a client of its own.
    assert.equal(json.clients.length, FAULTY_CLIENTS.length);
  });

  /** The one client of the report whose user agent is `userAgent`. */
  function clientOf(json: ClientReport | undefined, userAgent: string): ClientResult {
    const clients = json?.clients.filter((client) => client.userAgent === userAgent) ?? [];
    assert.equal(clients.length, 1, `one client ${userAgent}: ${JSON.stringify(json?.clients)}`);
    return clients[0] as ClientResult;
  }

  function flaggedOf(client: ClientResult): ClientResult['rules'] {
    return client.rules.filter((rule) => rule.verdict === 'fail' || rule.verdict === 'warning');
  }

  test('one library over HTTP/1.1 and over HTTP/2 with one key is two clients, told apart by protocol', async () => {
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

  test("a garbage key and another tenant's key sent over plain HTTP: two exposed keys, each told by its fingerprint", async () => {
    await admin('DELETE', '/journal');
    const garbage = `mbk_prod_${randomBytes(24).toString('base64url')}`;
    const otherTenant = secretOf(target.fixtures, 'key_globex_prod_read');
    for (const key of [garbage, otherTenant]) {
      await send(target, {
        plain: true,
        headers: [
          ['User-Agent', 'sdk-plain-unknown-keys'],
          ['Authorization', `Bearer ${key}`],
        ],
      });
    }
    const { json, out } = await report();
    const exposed = json?.exposedKeys ?? [];
    assert.equal(exposed.length, 2, JSON.stringify(exposed));
    const fingerprints = exposed.map((key) => key.keyFingerprint ?? '');
    assert.equal(new Set(fingerprints).size, 2);
    for (const [index, key] of exposed.entries()) {
      assert.match(key.advice, new RegExp(`fingerprint ${fingerprints[index] ?? '?'}\\)`));
      assert.ok(out.includes(key.advice), 'the console tells them apart too');
    }
    const markdown = readFileSync(join(reportsDir, 'client-report.md'), 'utf8');
    for (const text of [out, markdown, JSON.stringify(json)])
      assert.ok(!text.includes(garbage) && !text.includes(otherTenant), 'a key was shown');
  });

  test('a key sent over plain HTTP is exposed: critical in the report, rotate advised', async () => {
    await admin('DELETE', '/journal');
    const plain = FAULTY_CLIENTS.find((client) => client.userAgent === 'faulty-plain-http');
    await plain?.run(target);
    const { json, out } = await report();
    assert.equal(json?.clients[0]?.exposed, 'critical');
    assert.deepEqual(
      json?.exposedKeys.map((key) => [key.key, key.severity]),
      [['key_acme_prod_read', 'critical']],
    );
    assert.match(json?.exposedKeys[0]?.advice ?? '', /Rotate key_acme_prod_read/);
    assert.match(out, /KEY EXPOSED \(critical\)/);
  });

  test('the example client is judged CLIENT CONFORMANT', async () => {
    await admin('DELETE', '/journal');
    const customers = await listCustomers({
      baseUrl: target.server.baseUrl('acme'),
      apiKey: secretOf(target.fixtures, 'key_acme_prod_read'),
      ca: target.ca,
    });
    assert.equal((customers as { object: string }).object, 'list');
    const { code, json, out } = await report('--tenant', 'acme');
    assert.equal(code, EXIT.conformant, out);
    assert.equal(json?.verdict, 'CLIENT CONFORMANT');
    assert.equal(json?.clients.length, 1);
    assert.equal(json?.clients[0]?.userAgent, USER_AGENT);
    assert.equal(json?.clients[0]?.key, 'key_acme_prod_read');
    assert.deepEqual(
      json?.clients[0]?.rules.filter((rule) => rule.verdict === 'fail' || rule.verdict === 'warning'),
      [],
    );
  });

  test('GET /v1/journal filters by tenant, key id and time, and is bounded by DELETE', async () => {
    await admin('DELETE', '/journal');
    const before = new Date().toISOString();
    const key = secretOf(target.fixtures, 'key_globex_prod_read');
    await send(target, { tenant: 'globex', headers: [['Authorization', `Bearer ${key}`]] });
    await send(target, {
      headers: [['Authorization', `Bearer ${secretOf(target.fixtures, 'key_acme_prod_read')}`]],
    });
    const read = async (query: string): Promise<Journal> =>
      JSON.parse((await admin('GET', `/journal${query}`)).body) as Journal;
    assert.ok(validatorFor<Journal>('journal.schema.json')(await read('')));
    assert.deepEqual(
      (await read('?tenant=globex')).data.map((entry) => entry.key),
      ['key_globex_prod_read'],
    );
    assert.deepEqual(
      (await read('?key_id=key_acme_prod_read')).data.map((entry) => entry.tenant),
      ['acme'],
    );
    assert.equal((await read(`?since=${encodeURIComponent(before)}`)).data.length, 2);
    assert.equal((await read('?until=2000-01-01T00:00:00Z')).data.length, 0);
    const bad = await admin('GET', '/journal?since=yesterday');
    assert.equal(bad.status, 400);
    assert.match(bad.body, /since must be an RFC 3339 date-time/);
    const deleted = JSON.parse((await admin('DELETE', '/journal?tenant=globex')).body) as { deleted: number };
    assert.equal(deleted.deleted, 1);
    assert.equal((await read('')).data.length, 1);
  });

  test('exit codes: 2 for a usage error, 3 when the server cannot be reached or the window is empty', async () => {
    assert.equal((await report('--since', 'yesterday')).code, EXIT.usage);
    assert.equal(
      (await report('--key-id', secretOf(target.fixtures, 'key_acme_prod_read'))).code,
      EXIT.usage,
    );
    const unreachable = await clientReport(
      ['--admin-url', 'https://admin.localhost:1/v1', '--reports', reportsDir],
      {
        env: { REFERENCE_ADMIN_TOKEN: ADMIN_TOKEN },
        out: () => {},
        err: () => {},
      },
    );
    assert.equal(unreachable, EXIT.setup);
    await admin('DELETE', '/journal');
    assert.equal((await report()).code, EXIT.setup);
    const help = await report('--help');
    assert.equal(help.code, 0);
    assert.match(help.out, /Exit code: 0 CLIENT CONFORMANT/);
  });

  test('no key appears in the journal, the admin API answers, the console or the report files', async () => {
    await admin('DELETE', '/journal');
    for (const client of FAULTY_CLIENTS) await client.run(target);
    const { out, err } = await report();
    const journal = (await admin('GET', '/journal')).body;
    const files = readdirSync(reportsDir).map((name) => readFileSync(join(reportsDir, name), 'utf8'));
    const secrets = allSecrets(target.fixtures);
    for (const text of [journal, out, err, ...files, ...target.accessLog]) {
      for (const secret of secrets) assert.ok(!text.includes(secret), 'a key was shown');
    }
    assert.ok(!journal.includes(ADMIN_TOKEN));
    assert.equal(files.length, 3);
  });
});
