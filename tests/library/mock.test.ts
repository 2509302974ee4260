// The reference server in-process (library/mock.ts): its fetch, dispatcher and https Agent reach
// the tenant hosts and trust the CA, minting makes a working key, the client report judges what
// the clients sent (the client-report command's code), and closing it leaves nothing running.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { get } from 'node:https';
import { fetch as undiciFetch, request } from 'undici';
import { startReferenceMock } from '../../library/mock.ts';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { compiledModule } from '../support/compiled-kit.ts';

const JSON_READ = { Accept: 'application/json', 'User-Agent': 'mock-test-client' };

describe('the reference server in-process', () => {
  test('fetch, dispatcher and https Agent reach a tenant with a fixture key; minting works', async () => {
    await using mock = await startReferenceMock();
    assert.deepEqual(Object.keys(mock.tenants).sort(), ['acme', 'globex', 'initech']);
    assert.match(mock.tenants.acme?.production ?? '', /^https:\/\/acme\.api\.localhost:\d+\/v1$/);
    assert.match(mock.tenants.acme?.sandbox ?? '', /^https:\/\/sandbox-acme\.api\.localhost:\d+\/v1$/);
    const read = mock.keys.key_acme_prod_read;
    assert.ok(read);
    assert.equal(read.access, 'read_only');
    const bearer = { ...JSON_READ, Authorization: `Bearer ${read.secret}` };

    const viaFetch = await mock.fetch(`${mock.baseUrl('acme')}/customers`, { headers: bearer });
    assert.equal(viaFetch.status, 200);
    assert.equal(((await viaFetch.json()) as { object: string }).object, 'list');

    const viaDispatcher = await request(`${mock.baseUrl('acme')}/customers`, {
      headers: bearer,
      dispatcher: mock.dispatcher,
    });
    assert.equal(viaDispatcher.statusCode, 200);
    await viaDispatcher.body.text();
    const withOwnFetch = await undiciFetch(`${mock.baseUrl('acme')}/customers`, {
      headers: { ...JSON_READ },
      dispatcher: mock.dispatcher,
    });
    assert.equal(withOwnFetch.status, 401);
    await withOwnFetch.text();

    const viaAgent = await new Promise<number>((resolve, reject) => {
      get(`${mock.baseUrl('acme')}/customers`, { agent: mock.httpsAgent, headers: bearer }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      }).on('error', reject);
    });
    assert.equal(viaAgent, 200);

    const minted = await mock.mintKey({
      tenant: 'globex',
      environment: 'sandbox',
      access: 'custom',
      permissions: ['customers:read'],
    });
    assert.equal(minted.environment, 'sandbox');
    assert.deepEqual(minted.permissions, ['customers:read']);
    const sandbox = await mock.fetch(`${mock.tenants.globex?.sandbox}/customers`, {
      headers: { ...JSON_READ, Authorization: `Bearer ${minted.secret}` },
    });
    assert.equal(sandbox.status, 200);
    await sandbox.text();
    const wrongEnvironment = await mock.fetch(`${mock.baseUrl('globex')}/customers`, {
      headers: { ...JSON_READ, Authorization: `Bearer ${minted.secret}` },
    });
    assert.equal(wrongEnvironment.status, 401);
    await wrongEnvironment.text();
  });

  test('the client report: a correct client is CLIENT CONFORMANT, a faulty one caught by exactly its rules', async () => {
    await using mock = await startReferenceMock();
    const key = mock.keys.key_acme_prod_read?.secret ?? '';
    const good = await mock.fetch(`${mock.baseUrl('acme')}/customers`, {
      headers: { ...JSON_READ, Authorization: `Bearer ${key}` },
    });
    await good.text();
    const conformant = await mock.clientReport();
    assert.equal(conformant.verdict, 'CLIENT CONFORMANT');
    assert.equal(conformant.summary.clients, 1);

    await mock.clearJournal();
    assert.equal((await mock.journal()).data.length, 0);
    for (const [userAgent, url, authorization] of [
      ['quoted', `${mock.baseUrl('acme')}/customers`, `Bearer "${key}"`],
      ['in-query', `${mock.baseUrl('acme')}/customers?api_key=${key}`, `Bearer ${key}`],
    ] as const) {
      const response = await mock.fetch(url, {
        headers: { Accept: 'application/json', 'User-Agent': userAgent, Authorization: authorization },
      });
      await response.text();
    }
    const report = await mock.clientReport();
    assert.equal(report.verdict, 'CLIENT NOT CONFORMANT');
    const failed = (agent: string): string[] =>
      (report.clients.find((client) => client.userAgent === agent)?.rules ?? [])
        .filter((rule) => rule.verdict === 'fail')
        .map((rule) => rule.id);
    assert.deepEqual(failed('quoted'), ['CLIENT-AUTH-NO-QUOTES']);
    assert.deepEqual(failed('in-query'), ['CLIENT-KEY-NOT-IN-URL']);
    // No key value in the report.
    assert.ok(!JSON.stringify(report).includes(key));
  });

  test('a process that starts and closes it exits on its own', () => {
    const script = [
      `import { startReferenceMock } from ${JSON.stringify(compiledModule('library/mock'))};`,
      'const mock = await startReferenceMock();',
      "const response = await mock.fetch(mock.baseUrl('acme') + '/customers');",
      'await response.text();',
      'await mock.close();',
      "console.log('closed', response.status);",
    ].join('\n');
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.signal, null, `killed at the time-out: something kept it alive\n${result.stderr}`);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /closed 401/);
  });
});
