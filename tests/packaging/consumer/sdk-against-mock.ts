// An SDK team's test file: the kit's reference server in-process as the mock behind it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startReferenceMock, type ClientReport } from 'tenant-auth-conformance';

const USER_AGENT = { 'User-Agent': 'sdk-under-test/1.0', Accept: 'application/json' };

test('the SDK reads customers with a fixture key and a minted one: CLIENT CONFORMANT', async () => {
  await using mock = await startReferenceMock();
  const fixture = mock.keys['key_acme_prod_read'];
  assert.ok(fixture);
  const acme = mock.tenants['acme'];
  assert.ok(acme);
  const response = await mock.fetch(`${acme.production}/customers`, {
    headers: { ...USER_AGENT, Authorization: `Bearer ${fixture.secret}` },
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { object: string };
  assert.equal(body.object, 'list');

  const minted = await mock.mintKey({ tenant: 'acme', environment: 'sandbox', access: 'read_only' });
  const sandbox = await mock.fetch(`${acme.sandbox}/customers`, {
    headers: { ...USER_AGENT, Authorization: `Bearer ${minted.secret}` },
  });
  assert.equal(sandbox.status, 200);
  await sandbox.text();

  const report: ClientReport = await mock.clientReport();
  assert.equal(report.verdict, 'CLIENT CONFORMANT');
});

test('a faulty client (quoted key, ?api_key=) is reported by exactly its rules', async () => {
  await using mock = await startReferenceMock();
  const key = mock.keys['key_acme_prod_read']?.secret ?? '';
  const customers = `${mock.baseUrl('acme')}/customers`;
  const quoted = await mock.fetch(customers, {
    headers: { Accept: 'application/json', 'User-Agent': 'quoted', Authorization: `Bearer "${key}"` },
  });
  await quoted.text();
  const inQuery = await mock.fetch(`${customers}?api_key=${key}`, {
    headers: { Accept: 'application/json', 'User-Agent': 'in-query', Authorization: `Bearer ${key}` },
  });
  await inQuery.text();
  const report = await mock.clientReport();
  assert.equal(report.verdict, 'CLIENT NOT CONFORMANT');
  const failed = (userAgent: string): string[] =>
    (report.clients.find((client) => client.userAgent === userAgent)?.rules ?? [])
      .filter((rule) => rule.verdict === 'fail')
      .map((rule) => rule.id);
  assert.deepEqual(failed('quoted'), ['CLIENT-AUTH-NO-QUOTES']);
  assert.deepEqual(failed('in-query'), ['CLIENT-KEY-NOT-IN-URL']);
});
