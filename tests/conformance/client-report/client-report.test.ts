// The client report end to end: faulty clients against the reference server, each caught by
// exactly its rule; the example client judged CLIENT CONFORMANT; no key anywhere in what the
// journal, the admin API, the console or the report files show. How the report tells clients
// apart: clients-told-apart.test.ts; keys sent over plain HTTP: exposed-keys.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientReport, ClientResult } from '../../../schemas/generated/client-report.ts';
import { CLIENT_RULES } from '../../../conformance/catalog/client-rules.ts';
import type { Journal } from '../../../schemas/generated/journal.ts';
import { validatorFor } from '../../../schemas/validators.ts';
import { clientReport, EXIT } from '../../../conformance/client-report/client-report.ts';
import { listCustomers, USER_AGENT } from '../../../examples/client.ts';
import { allSecrets, secretOf, send } from '../../support/reference-client.ts';
import { FAULTY_CLIENTS } from './faulty-clients.ts';
import { ADMIN_TOKEN, clientReportPerSuite } from '../../support/client-report-suite.ts';

describe('client report', () => {
  const suite = clientReportPerSuite();
  const { admin, report } = suite;

  test('each faulty client is caught by exactly its rule, and the window is NOT CONFORMANT', async () => {
    const target = suite.target();
    const reportsDir = suite.reportsDir();
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

  test('the example client is judged CLIENT CONFORMANT', async () => {
    const target = suite.target();
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
    const target = suite.target();
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
    const target = suite.target();
    const reportsDir = suite.reportsDir();
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
    const target = suite.target();
    const reportsDir = suite.reportsDir();
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
