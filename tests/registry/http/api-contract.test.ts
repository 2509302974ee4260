// The registry's answers against its OpenAPI document (docs/registry-openapi.json), judged the way
// a contract-testing tool would: every status is a documented one and every body matches its
// schema. And reads behind --private-reads: a token of the publishers file (a reader's or a
// publisher's) is needed for every page, badge and API read; a publish is as before.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { OpenApiValidator, readOpenApiDocument } from '../../support/openapi-validator.ts';
import { REPO_ROOT } from '../../support/reference-client.ts';
import { stopBackends } from '../support/backends.ts';
import { MUST_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { uploadOf } from '../../../registry/publish/upload.ts';
import { addPublisher } from '../../../registry/publish/publishers.ts';

after(() => removeBundles());
const vendor = keyPair();
const validator = new OpenApiValidator(readOpenApiDocument(join(REPO_ROOT, 'docs', 'registry-openapi.json')));
const first = makeBundle({ key: vendor.privateKey });
const second = makeBundle({
  key: vendor.privateKey,
  failing: [MUST_RULES[0] ?? ''],
  startedAt: new Date('2026-11-26T00:00:00Z'),
});

describe('the registry answers as docs/registry-openapi.json says (PostgreSQL server)', () => {
  let registry: TestRegistry;
  let token: string;
  before(async () => {
    registry = await startTestRegistry(
      'server',
      { acme: [vendor.publicPem] },
      { maxBundleBytes: 256 * 1024 },
    );
    token = registry.tokens.get('acme') ?? '';
  });
  after(async () => {
    await registry.close();
    await stopBackends();
  });

  /** Sends, then checks the answer against the document's operation. */
  async function judged(
    method: 'get' | 'post',
    documented: string,
    path: string,
    init: { body?: string; token?: string } = {},
  ) {
    const answer = await registry.request(path, { method: method.toUpperCase(), ...init });
    const rawHeaders = [...answer.headers.entries()].flat();
    const problems = validator.problems(method, documented, {
      status: answer.status,
      rawHeaders,
      body: answer.text,
    });
    assert.deepEqual(problems, [], `${method} ${path}`);
    return answer;
  }

  test('publish: 201, 200, and each kind of refusal', async () => {
    const publish = (body: string, as: string | undefined = token) =>
      judged('post', '/api/v1/runs', '/api/v1/runs', { body, ...(as !== undefined ? { token: as } : {}) });
    assert.equal((await publish(uploadOf(first, 'shop', '1.0.0'))).status, 201);
    assert.equal((await publish(uploadOf(first, 'shop', '1.0.0'))).status, 200);
    assert.equal((await publish(uploadOf(first, 'shop', '1.0.1'))).status, 409);
    assert.equal((await publish(uploadOf(second, 'shop', '1.1.0'))).status, 201);
    assert.equal((await publish('{"deployment":')).status, 400);
    assert.equal((await publish(uploadOf(second, 'shop', '1.2.0'), 'nope')).status, 401);
    assert.equal(
      (await publish(uploadOf(makeBundle({ startedAt: new Date('2026-01-01T00:00:00Z') }), 'shop', '1.2.0')))
        .status,
      422,
    );
    assert.equal(
      (
        await publish(
          JSON.stringify({ deployment: 'shop', version: '1', files: { big: 'A'.repeat(400 * 1024) } }),
        )
      ).status,
      413,
    );
    const unsupported = await judged('post', '/api/v1/runs', '/api/v1/runs', { token });
    assert.equal(unsupported.status, 415);
  });

  test("a run checked by the registry: the operator's 201 with checkedBy, the 403 and 404; can-i-ship checkedBy", async () => {
    const registryKey = keyPair();
    const checker = addPublisher(registry.publishersFile, 'checker', [registryKey.publicPem], {
      operator: true,
    }).token;
    const publish = (bundle: string, deployment: string, as: string) =>
      judged('post', '/api/v1/runs', '/api/v1/runs', {
        body: uploadOf(bundle, deployment, '1.0.0', false, true),
        token: as,
      });
    const ours = makeBundle({ key: registryKey.privateKey, startedAt: new Date('2026-11-27T00:00:00Z') });
    assert.equal((await publish(ours, 'nobody', checker)).status, 404);
    assert.equal((await publish(first, 'checked', token)).status, 403);
    const vendors = makeBundle({ key: vendor.privateKey, startedAt: new Date('2026-11-26T12:00:00Z') });
    assert.equal(
      (
        await judged('post', '/api/v1/runs', '/api/v1/runs', {
          body: uploadOf(vendors, 'checked', '1.0.0'),
          token,
        })
      ).status,
      201,
    );
    const stored = await publish(ours, 'checked', checker);
    assert.equal(stored.status, 201);
    assert.equal((stored.json as { run: { checkedBy: string } }).run.checkedBy, 'registry');
    const ask = (query: string) => judged('get', '/api/v1/can-i-ship', `/api/v1/can-i-ship?${query}`);
    assert.equal((await ask('deployment=checked&version=1.0.0&checkedBy=registry')).status, 200);
    assert.equal((await ask('deployment=checked&version=1.0.0&checkedBy=vendor')).status, 400);
  });

  test('reads: certified list, history, run, files, can-i-ship, diff, badge — and their 4xx', async () => {
    const ids = (
      (await judged('get', '/api/v1/deployments/{name}', '/api/v1/deployments/shop')).json as {
        runs: { id: number }[];
      }
    ).runs.map((run) => run.id);
    assert.equal(ids.length, 2);
    assert.equal((await judged('get', '/api/v1/deployments', '/api/v1/deployments')).status, 200);
    // A page of one version, its next page (with the Link header), and a bad cursor.
    const firstPage = await judged('get', '/api/v1/deployments/{name}', '/api/v1/deployments/shop?limit=1');
    const next = (firstPage.json as { next: string | null }).next ?? '';
    assert.match(next, /^\/api\/v1\/deployments\/shop\?cursor=/);
    assert.equal(firstPage.headers.get('link'), `<${next}>; rel="next"`);
    assert.equal((await judged('get', '/api/v1/deployments/{name}', next)).status, 200);
    assert.equal(
      (await judged('get', '/api/v1/deployments/{name}', '/api/v1/deployments/shop?cursor=x!')).status,
      400,
    );
    assert.equal(
      (await judged('get', '/api/v1/deployments/{name}', '/api/v1/deployments/nowhere')).status,
      404,
    );
    assert.equal((await judged('get', '/api/v1/runs/{id}', `/api/v1/runs/${ids[0]}`)).status, 200);
    assert.equal((await judged('get', '/api/v1/runs/{id}', '/api/v1/runs/999999')).status, 404);
    assert.equal(
      (await judged('get', '/api/v1/runs/{id}/files', `/api/v1/runs/${ids[1]}/files`)).status,
      200,
    );
    assert.equal(
      (await judged('get', '/api/v1/can-i-ship', '/api/v1/can-i-ship?deployment=shop&version=1.0.0')).status,
      200,
    );
    assert.equal(
      (
        await judged(
          'get',
          '/api/v1/can-i-ship',
          '/api/v1/can-i-ship?deployment=shop&version=1.0.0&profile=x',
        )
      ).status,
      400,
    );
    assert.equal(
      (await judged('get', '/api/v1/diff', '/api/v1/diff?deployment=shop&from=1.0.0&to=1.1.0')).status,
      200,
    );
    assert.equal(
      (await judged('get', '/api/v1/diff', '/api/v1/diff?deployment=shop&from=1.0.0&to=9.0.0')).status,
      404,
    );
    assert.equal(
      (await judged('get', '/api/v1/diff', '/api/v1/diff?deployment=shop&from=1.0.0')).status,
      400,
    );
    assert.equal((await judged('get', '/badge/{file}', '/badge/shop.svg')).status, 200);
    assert.equal((await judged('get', '/badge/{file}', '/badge/nowhere.svg')).status, 404);
  });

  test('operations: yank, release, retention, audit — and their 4xx; then the reads that show them', async () => {
    const operator = addPublisher(registry.publishersFile, 'ops', [], { operator: true }).token;
    const ids = (
      (await registry.request('/api/v1/deployments/shop')).json as { runs: { id: number }[] }
    ).runs.map((run) => run.id);
    const post = (documented: string, path: string, body: unknown, as: string) =>
      judged('post', documented, path, { body: JSON.stringify(body), token: as });
    const yank = (id: unknown, body: unknown, as = token) =>
      post('/api/v1/runs/{id}/yank', `/api/v1/runs/${String(id)}/yank`, body, as);
    assert.equal((await yank(ids[1], {})).status, 400);
    assert.equal((await yank(ids[1], { reason: 'x' }, `tacr_${'B'.repeat(43)}`)).status, 401);
    assert.equal((await yank(999999, { reason: 'x' })).status, 404);
    assert.equal((await yank(ids[1], { reason: 'forged' })).status, 200);
    assert.equal((await yank(ids[1], { reason: 'again' })).status, 409);
    const release = (body: unknown, as = token) =>
      post('/api/v1/deployments/{name}/releases', '/api/v1/deployments/shop/releases', body, as);
    assert.equal((await release({ version: '1.0.0' })).status, 201);
    assert.equal((await release({ version: '7.0.0' })).status, 404);
    assert.equal((await release({ version: '' })).status, 400);
    const retention = (body: unknown, as = operator) =>
      post('/api/v1/retention', '/api/v1/retention', body, as);
    assert.equal((await retention({ keepLast: 1 }, token)).status, 403);
    assert.equal((await retention({ maxAgeDays: 0 })).status, 400);
    assert.equal((await retention({ keepLast: 1, dryRun: true })).status, 200);
    // The yanked run decides nothing and started days ago: its files go; 1.0.0's only run stays.
    assert.equal((await retention({ maxAgeDays: 1 })).status, 200);
    assert.equal((await judged('get', '/api/v1/audit', '/api/v1/audit', { token: operator })).status, 200);
    assert.equal((await judged('get', '/api/v1/audit', '/api/v1/audit', { token })).status, 403);
    assert.equal(
      (await judged('get', '/api/v1/audit', '/api/v1/audit?limit=5000', { token: operator })).status,
      400,
    );
    // The reads that show them: a yanked run, the live version, removed files, a replacement asked.
    assert.equal((await judged('get', '/api/v1/deployments/{name}', '/api/v1/deployments/shop')).status, 200);
    assert.equal((await judged('get', '/api/v1/runs/{id}', `/api/v1/runs/${ids[1]}`)).status, 200);
    assert.equal(
      (await judged('get', '/api/v1/runs/{id}/files', `/api/v1/runs/${ids[1]}/files`)).status,
      410,
    );
    const replacing = '/api/v1/can-i-ship?deployment=shop&version=1.1.0&replacingLive=true';
    assert.equal((await judged('get', '/api/v1/can-i-ship', replacing)).status, 200);
    assert.equal((await judged('get', '/api/v1/diff', '/api/v1/diff?deployment=shop&to=1.0.0')).status, 200);
  });

  test('webhooks: register, list, deliveries, remove — and their 4xx', async () => {
    const viewer = addPublisher(registry.publishersFile, 'viewer', []).token;
    const register = (body: unknown, as: string | null = token) =>
      judged('post', '/api/v1/webhooks', '/api/v1/webhooks', {
        body: JSON.stringify(body),
        ...(as !== null ? { token: as } : {}),
      });
    // Port 9 (discard) on loopback: nothing listens, each attempt is refused and kept as such.
    const hook = { url: 'https://localhost:9/hook', events: ['run.published', 'version.verdict_changed'] };
    const made = await register({ ...hook, deployment: 'shop' });
    assert.equal(made.status, 201);
    const id = (made.json as { webhook: { id: number } }).webhook.id;
    assert.equal((await register({ ...hook, url: 'http://localhost:9/hook' })).status, 400);
    assert.equal((await register({ ...hook, deployment: 'nowhere' })).status, 404);
    assert.equal((await register(hook, viewer)).status, 403);
    assert.equal((await register(hook, null)).status, 401);
    assert.equal((await judged('get', '/api/v1/webhooks', '/api/v1/webhooks', { token })).status, 200);
    assert.equal(
      (await judged('get', '/api/v1/webhooks', '/api/v1/webhooks?cursor=x!', { token })).status,
      400,
    );
    // A yank queues a delivery (the verdict of 1.0.0 changes): listed, whatever its state at this moment.
    const runs = ((await registry.request('/api/v1/deployments/shop')).json as { runs: { id: number }[] })
      .runs;
    const yanked = await registry.request(`/api/v1/runs/${runs[0]?.id ?? 0}/yank`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'to queue an event' }),
      token,
    });
    assert.equal(yanked.status, 200, yanked.text);
    const deliveries = await judged(
      'get',
      '/api/v1/webhooks/{id}/deliveries',
      `/api/v1/webhooks/${id}/deliveries`,
      {
        token,
      },
    );
    assert.equal((deliveries.json as { deliveries: unknown[] }).deliveries.length, 1);
    assert.equal(
      (await judged('get', '/api/v1/webhooks/{id}/deliveries', '/api/v1/webhooks/999/deliveries', { token }))
        .status,
      404,
    );
    const remove = (as: string) =>
      judged('post', '/api/v1/webhooks/{id}/remove', `/api/v1/webhooks/${id}/remove`, {
        body: '{}',
        token: as,
      });
    assert.equal((await remove(viewer)).status, 403);
    assert.equal((await remove(token)).status, 200);
    assert.equal((await remove(token)).status, 404);
  });
});

describe('--private-reads (embedded database)', () => {
  let registry: TestRegistry;
  before(async () => {
    registry = await startTestRegistry(
      'embedded',
      { acme: [vendor.publicPem], auditor: [] },
      { privateReads: true },
    );
    const published = await registry.publish(first, 'shop', '1.0.0', registry.tokens.get('acme') ?? '');
    assert.equal(published.status, 201);
  });
  after(() => registry.close());

  const reads = [
    '/',
    '/deployments/shop',
    '/runs/1',
    '/runs/1/files/conformance.html',
    '/badge/shop.svg',
    '/api/v1/deployments',
    '/api/v1/can-i-ship?deployment=shop&version=1.0.0',
  ];

  test('without a token, or with a malformed or unknown one, every read is a 401 naming why', async () => {
    for (const path of reads) {
      const none = await registry.request(path);
      assert.equal(none.status, 401, path);
      assert.equal((none.json as { error: { code: string } }).error.code, 'missing_token');
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="registry"');
      assert.equal((await registry.request(path, { token: 'x' })).status, 401);
      assert.equal((await registry.request(path, { token: `tacr_${'B'.repeat(43)}` })).status, 401);
    }
  });

  test("a reader's token and a publisher's read everything", async () => {
    for (const path of reads)
      for (const name of ['auditor', 'acme']) {
        const answer = await registry.request(path, { token: registry.tokens.get(name) ?? '' });
        assert.equal(answer.status, 200, `${name} ${path}`);
      }
  });
});
