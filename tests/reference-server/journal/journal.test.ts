// The client journal: bounded per tenant with a count of what was dropped, a TLS connection
// without SNI recorded even without a request, keys named by id or fingerprint and never kept.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:tls';
import type { Journal, JournalEntry } from '../../../schemas/generated/journal.ts';
import type { IncomingMessage } from 'node:http';
import { Ring } from '../../../reference-server/journal/ring.ts';
import {
  DEFAULT_JOURNAL_CAPACITY,
  Journal as JournalRecorder,
} from '../../../reference-server/journal/journal.ts';
import { parseCli } from '../../../reference-server/cli/cli-options.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../../reference-server/store/fixtures.ts';
import { TenantData } from '../../../reference-server/store/tenant-data.ts';
import { tenantFieldsIn } from '../../../reference-server/journal/body-facts.ts';
import { urlFacts } from '../../../reference-server/journal/url-facts.ts';
import { requestFacts } from '../../../reference-server/addressing/address.ts';
import { CORRECT_STEPS } from '../../../reference-server/steps/server-steps.ts';
import {
  allSecrets,
  LOOPBACK,
  secretOf,
  send,
  startTestServer,
  type TestServer,
} from '../../support/reference-client.ts';

const ADMIN_TOKEN = `test_${randomBytes(32).toString('base64url')}`;

async function journalOf(target: TestServer, query = ''): Promise<Journal> {
  const reply = await send(target, {
    host: 'admin.localhost',
    path: `/v1/journal${query}`,
    headers: [['Authorization', `Bearer ${ADMIN_TOKEN}`]],
  });
  assert.equal(reply.status, 200, reply.body);
  return JSON.parse(reply.body) as Journal;
}

async function withServer(
  capacity: number | undefined,
  run: (target: TestServer) => Promise<void>,
): Promise<void> {
  const target = await startTestServer({
    adminToken: ADMIN_TOKEN,
    ...(capacity === undefined ? {} : { journalCapacity: capacity }),
  });
  try {
    await run(target);
  } finally {
    await target.close();
  }
}

describe('ring', () => {
  test('claim hands out a new slot until the ring is full, then the oldest one, counted as dropped', () => {
    const ring = new Ring<{ value: number }>(2);
    const made: { value: number }[] = [];
    const make = (): { value: number } => {
      made.push({ value: 0 });
      return made[made.length - 1] as { value: number };
    };
    for (let value = 1; value <= 3; value++) ring.claim(make).value = value;
    assert.equal(made.length, 2, 'no slot made once the ring is full');
    assert.deepEqual(
      ring.entries().map((slot) => slot.value),
      [2, 3],
    );
    assert.equal(ring.dropped, 1);
  });

  test('keeps the newest entries, oldest first, and counts the dropped', () => {
    const ring = new Ring<number>(3);
    for (let value = 1; value <= 5; value++) ring.push(value);
    assert.deepEqual(ring.entries(), [3, 4, 5]);
    assert.equal(ring.dropped, 2);
    assert.equal(
      ring.retain((value) => value !== 4),
      1,
    );
    assert.deepEqual(ring.entries(), [3, 5]);
    ring.push(6);
    ring.push(7);
    assert.deepEqual(ring.entries(), [5, 6, 7]);
    assert.equal(ring.dropped, 3);
    assert.equal(ring.dropOldest(), true);
    ring.push(8);
    assert.deepEqual(ring.entries(), [6, 7, 8]);
    assert.equal(ring.dropped, 4);
  });
});

describe('journal bound in all', () => {
  test('beyond its total bound the journal makes room in the ring written to, or in the fullest one', () => {
    const data = new TenantData(loadFixtures(DEFAULT_FIXTURES_FILE));
    const journal = new JournalRecorder({ data, capacity: 3, maxEntries: 4 });
    const request = (tenant: string) =>
      ({
        method: 'GET',
        url: '/v1/customers',
        rawHeaders: ['Host', `${tenant}.api.localhost`],
        socket: { servername: `${tenant}.api.localhost` },
      }) as unknown as IncomingMessage;
    const record = (tenant: string) =>
      journal.recordApi(
        request(tenant),
        {
          ...requestFacts(request(tenant), { domain: 'localhost', data, steps: CORRECT_STEPS }),
          tenant,
          environment: 'production',
          keyId: 'key_x',
        },
        { status: 200 },
      );
    for (let index = 0; index < 3; index++) record('acme');
    record('globex');
    record('globex');
    record('initech');
    const tenants = journal.read().tenants;
    assert.equal(
      tenants.reduce((sum, tenant) => sum + tenant.entries, 0),
      4,
    );
    assert.deepEqual(
      tenants.map((tenant) => [tenant.tenant, tenant.entries, tenant.dropped]),
      [
        ['acme', 2, 1],
        ['globex', 1, 1],
        ['initech', 1, 0],
      ],
    );
  });
});

describe('journal', () => {
  test('is bounded per tenant: the oldest entries give way, counted, and other tenants keep theirs', async () => {
    await withServer(2, async (target) => {
      const key = secretOf(target.fixtures, 'key_acme_prod_read');
      for (let index = 0; index < 3; index++) {
        await send(target, {
          headers: [
            ['Authorization', `Bearer ${key}`],
            ['User-Agent', `client-${index}`],
          ],
        });
      }
      await send(target, { tenant: 'globex' });
      const journal = await journalOf(target);
      const acme = journal.tenants.find((tenant) => tenant.tenant === 'acme');
      assert.deepEqual(acme, { tenant: 'acme', entries: 2, dropped: 1, capacity: 2 });
      assert.deepEqual(
        journal.data.filter((entry) => entry.tenant === 'acme').map((entry) => entry.userAgent),
        ['client-1', 'client-2'],
      );
      assert.equal(journal.data.filter((entry) => entry.tenant === 'globex').length, 1);
    });
  });

  test('records a TLS connection without SNI that carried no request, once, and none with a request', async () => {
    await withServer(undefined, async (target) => {
      await new Promise<void>((resolve, reject) => {
        const socket = connect({
          host: LOOPBACK,
          port: target.server.httpsPort,
          ca: target.ca,
          servername: '',
          rejectUnauthorized: false,
        });
        socket.once('secureConnect', () => socket.end());
        socket.once('close', () => resolve());
        socket.once('error', reject);
      });
      await send(target, { servername: '', verifyHostname: 'acme.api.localhost' });
      // The server records the bare connection when it closes: wait for it, bounded.
      let bare: JournalEntry[] = [];
      for (let attempt = 0; attempt < 50 && bare.length === 0; attempt++) {
        bare = (await journalOf(target)).data.filter((entry) => entry.transport === 'tls');
        if (bare.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(bare.length, 1);
      assert.equal(bare[0]?.sni, 'missing');
      const requests = (await journalOf(target)).data.filter(
        (entry) => entry.transport === 'https' && entry.sni === 'missing',
      );
      assert.equal(requests.length, 1);
    });
  });

  test('names a key by id when the store knows it (quoted, revoked, other environment), else by a fingerprint', async () => {
    await withServer(undefined, async (target) => {
      const unknown = `mbk_prod_${'A'.repeat(32)}`;
      await send(target, {
        headers: [['Authorization', `Bearer "${secretOf(target.fixtures, 'key_acme_prod_full')}"`]],
      });
      await send(target, {
        headers: [['Authorization', `Bearer ${secretOf(target.fixtures, 'key_acme_prod_revoked')}`]],
      });
      await send(target, {
        headers: [['Authorization', `Bearer ${secretOf(target.fixtures, 'key_acme_dev_read')}`]],
      });
      await send(target, { headers: [['Authorization', `Bearer ${unknown}`]] });
      await send(target, {
        headers: [
          ['Authorization', `Bearer ${unknown}`],
          ['User-Agent', `sdk ${unknown}`],
        ],
      });
      const entries = (await journalOf(target)).data;
      assert.deepEqual(
        entries.map((entry) => [entry.authorization, entry.key, entry.keyEnvironment, entry.keyRevoked]),
        [
          ['quoted', 'key_acme_prod_full', 'production', false],
          ['bearer', 'key_acme_prod_revoked', 'production', true],
          ['bearer', 'key_acme_dev_read', 'sandbox', false],
          ['bearer', 'unknown key', 'production', undefined],
          ['bearer', 'unknown key', 'production', undefined],
        ],
      );
      assert.match(entries[3]?.keyFingerprint ?? '', /^[0-9a-f]{12}$/);
      assert.equal(
        entries[3]?.keyFingerprint,
        entries[4]?.keyFingerprint,
        'the same key, the same fingerprint',
      );
      assert.equal(entries[4]?.userAgent, 'sdk [redacted]');
      const text = JSON.stringify(entries);
      for (const secret of [...allSecrets(target.fixtures), unknown]) assert.ok(!text.includes(secret));
    });
  });

  test('a key sent in two fields, or folded into one over HTTP/2, is named by its id', async () => {
    await withServer(undefined, async (target) => {
      const key = secretOf(target.fixtures, 'key_acme_prod_read');
      const unknown = `mbk_prod_${'B'.repeat(32)}`;
      await send(target, {
        headers: [
          ['Authorization', `Bearer ${key}`],
          ['Authorization', `Bearer ${key}`],
        ],
      });
      await send(target, { http2: true, headers: [['authorization', `Bearer ${key}, Bearer ${key}`]] });
      await send(target, { http2: true, headers: [['authorization', `Bearer ${unknown},Bearer ${key}`]] });
      // Not two credentials: the text after the scheme stays what is named.
      await send(target, { headers: [['Authorization', `Bearer ${key}, x`]] });
      const entries = (await journalOf(target)).data;
      assert.deepEqual(
        entries.map((entry) => [entry.protocol, entry.authorization, entry.key, entry.keyEnvironment]),
        [
          ['h1', 'duplicate', 'key_acme_prod_read', 'production'],
          ['h2', 'folded', 'key_acme_prod_read', 'production'],
          ['h2', 'folded', 'unknown key', 'production'],
          ['h1', 'malformed', 'unknown key', 'production'],
        ],
      );
      const text = JSON.stringify(entries);
      for (const secret of [...allSecrets(target.fixtures), unknown]) assert.ok(!text.includes(secret));
    });
  });

  test('an SNI mismatch keeps the two names sent, over either protocol, and only names that are host names', async () => {
    await withServer(undefined, async (target) => {
      const key = secretOf(target.fixtures, 'key_acme_prod_read');
      await send(target, {
        servername: 'globex.api.localhost',
        headers: [['Authorization', `Bearer ${key}`]],
      });
      await send(target, {
        http2: true,
        servername: 'globex.api.localhost',
        headers: [['authorization', `Bearer ${key}`]],
      });
      // A key where a host name belongs is not kept.
      await send(target, {
        host: key,
        servername: 'acme.api.localhost',
        verifyHostname: 'acme.api.localhost',
      });
      await send(target, { headers: [['Authorization', `Bearer ${key}`]] });
      const entries = (await journalOf(target)).data;
      assert.deepEqual(
        entries.map((entry) => [entry.protocol, entry.sni, entry.sniName, entry.hostName]),
        [
          ['h1', 'mismatch', 'globex.api.localhost', 'acme.api.localhost'],
          ['h2', 'mismatch', 'globex.api.localhost', 'acme.api.localhost'],
          ['h1', 'mismatch', 'acme.api.localhost', '(not a host name)'],
          ['h1', 'match', undefined, undefined],
        ],
      );
      assert.ok(!JSON.stringify(entries).includes(key));
    });
  });

  test("a key's random part lower-cased into host labels is not kept as the SNI's or the request's host name", async () => {
    await withServer(undefined, async (target) => {
      const key = secretOf(target.fixtures, 'key_acme_prod_read');
      // What the access log redacts too (a run of letters and digits that switches twice).
      const random = key.replace(/^mbk_[a-z]+_/, '').toLowerCase();
      const labels = `${random.slice(0, 11)}.${random.slice(11, 22)}.${random.slice(22)}`;
      await send(target, { servername: labels, verifyHostname: 'acme.api.localhost' });
      await send(target, {
        host: labels,
        servername: 'acme.api.localhost',
        verifyHostname: 'acme.api.localhost',
      });
      const entries = (await journalOf(target)).data;
      assert.deepEqual(
        entries.map((entry) => [entry.sni, entry.sniName, entry.hostName]),
        [
          ['mismatch', '(not a host name)', 'acme.api.localhost'],
          ['mismatch', 'acme.api.localhost', '(not a host name)'],
        ],
      );
      const text = JSON.stringify(entries);
      for (const piece of labels.split('.')) assert.ok(!text.includes(piece), piece);
    });
  });

  test('with a capacity of 0 the journal is off and the admin API says so', async () => {
    await withServer(0, async (target) => {
      const reply = await send(target, {
        host: 'admin.localhost',
        path: '/v1/journal',
        headers: [['Authorization', `Bearer ${ADMIN_TOKEN}`]],
      });
      assert.equal(reply.status, 404);
      assert.match(reply.body, /journal_disabled/);
    });
  });
});

test('npm start -- --journal-size sets the per-tenant bound (off: no journal), from a flag or the environment', () => {
  const capacity = (argv: string[], env: NodeJS.ProcessEnv = {}): number | undefined => {
    const command = parseCli(argv, env);
    return command.help ? undefined : command.options.journalCapacity;
  };
  assert.equal(capacity([]), DEFAULT_JOURNAL_CAPACITY);
  assert.equal(capacity(['--journal-size', 'off']), 0);
  assert.equal(capacity([], { REFERENCE_JOURNAL_SIZE: '50' }), 50);
});

describe('request facts', () => {
  test('tenant id fields are found in nested JSON bodies, and in text that is not JSON', () => {
    assert.deepEqual(tenantFieldsIn('{"customer":{"items":[{"Company_ID":1}]},"tenant_id":"a"}').sort(), [
      'company_id',
      'tenant_id',
    ]);
    assert.deepEqual(tenantFieldsIn('{"organization_id": 1, oops'), ['organization_id']);
    // In any letter case, as in a body that parses: a body cut at the scan's limit is not JSON.
    assert.deepEqual(tenantFieldsIn('{"Tenant_ID": 1, "COMPANY_ID": 2, oops').sort(), [
      'company_id',
      'tenant_id',
    ]);
    assert.deepEqual(tenantFieldsIn('{"name":"tenant_id"}'), []);
  });

  test('credentials in the URL are found in the query, the path and userinfo, and only names are kept', () => {
    const key = `mbk_prod_${'B'.repeat(32)}`;
    const query = urlFacts(`/v1/customers?api_key=${key}&tenant_id=acme&x=${encodeURIComponent(key)}`);
    assert.deepEqual(query.urlCredentials, ['query:api_key', 'query:[redacted]']);
    assert.deepEqual(query.tenantFields, ['query:tenant_id']);
    assert.equal(query.path, '/v1/customers');
    assert.equal(query.presentedKey, key);
    assert.deepEqual(urlFacts(`/v1/${key}/customers`).urlCredentials, ['path']);
    assert.equal(urlFacts(`/v1/${key}/customers`).path, '/v1/[redacted]/customers');
    assert.deepEqual(urlFacts(`https://user:${key}@acme.api.localhost/v1/customers`).urlCredentials, [
      'userinfo',
    ]);
    assert.equal(urlFacts('/v1/customers?page=2').urlCredentials, undefined);
  });

  test("a CONNECT request's target (authority form, host:port) is kept as the access log keeps it, not read as a URL", () => {
    assert.equal(urlFacts('acme.api.localhost:443').path, 'acme.api.localhost:443');
    const keyed = urlFacts(`mbk_prod_${'B'.repeat(32)}:443`);
    assert.equal(keyed.path, '[redacted]');
    assert.deepEqual(keyed.urlCredentials, ['path']);
  });
});
