// Webhooks end to end, on the embedded database and on a PostgreSQL server: registered through the
// API, delivered to a real HTTPS endpoint (a private CA the registry is told to trust), signed with
// the secret shown once, retried after a 500, each delivery kept and listed a page at a time. The
// events are the registry's own decisions (the deciding run, diff's regressions) before and after a
// publish or a yank. A held endpoint never holds a publish; a registry stopped with a delivery
// pending delivers it once started again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addPublisher } from '../../../registry/publish/publishers.ts';
import { verifySignature } from '../../../registry/webhooks/sign.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { MUST_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../support/webhook-receiver.ts';

after(() => removeBundles());
const vendor = keyPair();
const stranger = keyPair();
const mustRule = MUST_RULES[2] ?? '';
const at = (day: number): Date => new Date(`2026-11-${String(day).padStart(2, '0')}T09:00:00Z`);
const bundles = {
  pass100: makeBundle({ key: vendor.privateKey, startedAt: at(1) }),
  fail110: makeBundle({ key: vendor.privateKey, failing: [mustRule], startedAt: at(2) }),
  fail100: makeBundle({ key: vendor.privateKey, failing: [mustRule], startedAt: at(3) }),
  slow1: makeBundle({ key: vendor.privateKey, startedAt: at(4) }),
  slow2: makeBundle({ key: vendor.privateKey, startedAt: at(5) }),
  slow3: makeBundle({ key: vendor.privateKey, startedAt: at(6) }),
  later1: makeBundle({ key: vendor.privateKey, startedAt: at(7) }),
  later2: makeBundle({ key: vendor.privateKey, startedAt: at(8) }),
};

interface Delivery {
  deliveryId: string;
  eventId: string;
  event: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
}
interface EventBody {
  id: string;
  event: string;
  deployment: string;
  version: string;
  [key: string]: unknown;
}

const bodyOf = (request: Received): EventBody => JSON.parse(request.body.toString('utf8')) as EventBody;

for (const backend of BACKENDS) {
  describe(`webhooks on the ${backend} database`, () => {
    let registry: TestRegistry;
    let receiver: WebhookReceiver;
    let token: string;
    let other: string;
    let reader: string;
    let operator: string;
    const post = (path: string, body: unknown, as: string | undefined) =>
      registry.request(path, {
        method: 'POST',
        body: JSON.stringify(body),
        ...(as !== undefined ? { token: as } : {}),
      });
    const publish = async (bundle: string, deployment: string, version: string): Promise<number> => {
      const answer = await registry.publish(bundle, deployment, version, token);
      assert.equal(answer.status, 201, JSON.stringify(answer.json));
      return (answer.json as { run: { id: number } }).run.id;
    };
    const register = async (body: Record<string, unknown>, as = token) => {
      const answer = await post('/api/v1/webhooks', body, as);
      assert.equal(answer.status, 201, answer.text);
      return answer.json as { webhook: { id: number }; secret: string };
    };
    /** The 2xx-answered requests at `path` about `deployment`, by event. */
    const deliveredAt = (path: string, deployment: string) => (request: Received) =>
      request.path === path && request.answered === 200 && bodyOf(request).deployment === deployment;

    before(async () => {
      receiver = await startWebhookReceiver();
      registry = await startTestRegistry(
        backend,
        { acme: [vendor.publicPem], globex: [stranger.publicPem] },
        {
          webhooks: {
            trustedCas: [receiver.caPem],
            retry: { baseDelayMs: 50, maxDelayMs: 200 },
            timeoutMs: 60_000,
          },
        },
      );
      token = registry.tokens.get('acme') ?? '';
      other = registry.tokens.get('globex') ?? '';
      reader = addPublisher(registry.publishersFile, 'viewer', []).token;
      operator = addPublisher(registry.publishersFile, 'ops', [], { operator: true }).token;
    });
    after(async () => {
      await registry.close();
      await receiver.close();
      if (backend === 'server') await stopBackends();
    });

    test('a webhook is an https URL without credentials, for known events, registered by a publisher or the operator', async () => {
      const good = { url: `${receiver.url}/hooks/refused`, events: ['run.published'] };
      const refusals: [unknown, string | undefined, number, string, RegExp][] = [
        [{ ...good, url: good.url.replace('https:', 'http:') }, token, 400, 'bad_webhook', /over https only/],
        [
          { ...good, url: good.url.replace('https://', 'https://user:pw@') },
          token,
          400,
          'bad_webhook',
          /credentials/,
        ],
        [{ ...good, url: 'not a url' }, token, 400, 'bad_webhook', /does not parse/],
        [{ ...good, events: ['run.deleted'] }, token, 400, 'bad_webhook', /Unknown event "run.deleted"/],
        [{ ...good, events: [] }, token, 400, 'bad_webhook', /Give the events/],
        [
          { ...good, deployment: 'nowhere' },
          token,
          404,
          'no_such_deployment',
          /no deployment named "nowhere"/,
        ],
        [good, reader, 403, 'not_allowed', /is a reader/],
        [good, undefined, 401, 'missing_token', /Bearer/],
      ];
      for (const [body, as, status, code, message] of refusals) {
        const answer = await post('/api/v1/webhooks', body, as);
        const error = (answer.json as { error: { code: string; message: string } }).error;
        assert.equal(answer.status, status, answer.text);
        assert.equal(error.code, code);
        assert.match(error.message, message);
        assert.ok(!answer.text.includes('pw@'), "a refused URL's credentials are not echoed");
      }
      assert.equal(
        ((await registry.request('/api/v1/webhooks', { token })).json as { webhooks: [] }).webhooks.length,
        0,
      );
    });

    test('events are delivered signed, a 500 is retried, and every delivery is kept and listed', async () => {
      receiver.answer('/hooks/shop', 500, 200);
      const { webhook, secret } = await register({
        url: `${receiver.url}/hooks/shop`,
        events: ['run.published', 'version.verdict_changed', 'rule.regressed', 'certified_version.lost'],
      });
      assert.match(secret, /^tacw_[A-Za-z0-9_-]{43}$/);
      const shop = deliveredAt('/hooks/shop', 'shop');

      const first = await publish(bundles.pass100, 'shop', '1.0.0');
      const [published] = await receiver.waitFor(shop, 1);
      assert.ok(published);
      const tries = receiver.received.filter((request) => request.path === '/hooks/shop');
      assert.deepEqual(
        tries.map((request) => request.answered),
        [500, 200],
        'one 500, then the retry',
      );
      for (const header of ['x-registry-delivery', 'x-registry-event-id', 'x-registry-signature-256'])
        assert.equal(
          tries[0]?.headers[header],
          tries[1]?.headers[header],
          `a retry sends the same ${header}`,
        );
      const body = bodyOf(published);
      assert.equal(body.event, 'run.published');
      assert.equal(published.headers['x-registry-event'], 'run.published');
      assert.equal(published.headers['x-registry-event-id'], body.id);
      assert.deepEqual(
        [body.deployment, body.version, (body.run as { id: number }).id],
        ['shop', '1.0.0', first],
      );
      const signatureHeader = published.headers['x-registry-signature-256'] as string;
      assert.ok(verifySignature(secret, published.body, signatureHeader), 'signed with the secret');
      assert.ok(!verifySignature(`${secret}x`, published.body, signatureHeader), 'and with no other');
      assert.ok(!verifySignature(secret, Buffer.concat([published.body, Buffer.from(' ')]), signatureHeader));

      // 1.1.0 fails a rule 1.0.0 passed: diff's regression against the version before it.
      const failing = await publish(bundles.fail110, 'shop', '1.1.0');
      const afterFailing = await receiver.waitFor(shop, 3);
      const regressed = afterFailing.map(bodyOf).find((item) => item.event === 'rule.regressed');
      assert.equal(regressed?.version, '1.1.0');
      assert.equal(regressed?.baseline, '1.0.0');
      assert.deepEqual(
        (regressed?.rules as { ruleId: string }[]).map((rule) => rule.ruleId),
        [mustRule],
      );
      // Yanked: 1.1.0 has no deciding run any more.
      assert.equal((await post(`/api/v1/runs/${failing}/yank`, { reason: 'flaky host' }, token)).status, 200);
      const afterYank = await receiver.waitFor(shop, 4);
      const changed = afterYank.map(bodyOf).find((item) => item.event === 'version.verdict_changed');
      assert.deepEqual(
        [changed?.version, (changed?.from as { verdict: string }).verdict, changed?.to],
        ['1.1.0', 'NOT CONFORMANT', null],
      );
      assert.deepEqual((changed?.cause as { yanked: { run: number } }).yanked.run, failing);
      // A newer failing run of the certified 1.0.0: its verdict changes and the certification is lost.
      const newer = await publish(bundles.fail100, 'shop', '1.0.0');
      const all = (await receiver.waitFor(shop, 7)).map(bodyOf);
      const of100 = all
        .filter((item) => item.version === '1.0.0')
        .map((item) => item.event)
        .sort();
      assert.deepEqual(of100, [
        'certified_version.lost',
        'run.published',
        'run.published',
        'version.verdict_changed',
      ]);
      const lost = all.find((item) => item.event === 'certified_version.lost');
      assert.deepEqual([(lost?.was as { id: number }).id, (lost?.now as { id: number }).id], [first, newer]);
      assert.equal(new Set(all.map((item) => item.id)).size, all.length, 'each event has its own id');

      // The deliveries, newest first, a page at a time; the secret is in none of them. The worker
      // records a delivery after its endpoint answered: on a busy machine the receiver has all 7
      // before the last record says so, so the records are read once they all do (bounded).
      const recorded = async (): Promise<Delivery[]> =>
        (
          (await registry.request(`/api/v1/webhooks/${webhook.id}/deliveries?limit=100`, { token })).json as {
            deliveries: Delivery[];
          }
        ).deliveries;
      for (let poll = 0; poll < 200; poll++) {
        if ((await recorded()).every((delivery) => delivery.status === 'delivered')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const page = await registry.request(`/api/v1/webhooks/${webhook.id}/deliveries?limit=5`, { token });
      assert.equal(page.status, 200, page.text);
      const listed = page.json as { deliveries: Delivery[]; next: string };
      assert.equal(listed.deliveries.length, 5);
      assert.match(page.headers.get('link') ?? '', /rel="next"/);
      const rest = await registry.request(listed.next, { token });
      const deliveries = [...listed.deliveries, ...(rest.json as { deliveries: Delivery[] }).deliveries];
      assert.equal(deliveries.length, 7);
      assert.ok(
        deliveries.every((delivery) => delivery.status === 'delivered' && delivery.lastStatus === 200),
      );
      const oldest = deliveries.at(-1);
      assert.deepEqual(
        [oldest?.event, oldest?.attempts, oldest?.deliveryId],
        ['run.published', 2, tries[0]?.headers['x-registry-delivery']],
      );
      assert.ok(!page.text.includes(secret) && !rest.text.includes(secret));
      const list = await registry.request('/api/v1/webhooks', { token });
      assert.ok(!list.text.includes(secret), 'the list never shows a secret');
      assert.ok(
        registry.logs.every((line) => !line.includes(secret)),
        'nor does the log',
      );
      // Another publisher sees neither the webhook nor its deliveries; the operator sees both.
      assert.equal(
        (await registry.request(`/api/v1/webhooks/${webhook.id}/deliveries`, { token: other })).status,
        404,
      );
      assert.equal(
        ((await registry.request('/api/v1/webhooks', { token: other })).json as { webhooks: [] }).webhooks
          .length,
        0,
      );
      assert.equal(
        (await registry.request(`/api/v1/webhooks/${webhook.id}/deliveries`, { token: operator })).status,
        200,
      );
      assert.equal((await post(`/api/v1/webhooks/${webhook.id}/remove`, {}, other)).status, 404);
      // The deployment's page links to its deliveries' page: script-free, without the URL or the secret.
      assert.match(
        (await registry.request('/deployments/shop')).text,
        /href="\/deployments\/shop\/deliveries"/,
      );
      const html = await registry.request('/deployments/shop/deliveries?limit=5');
      assert.equal(html.status, 200);
      assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal((html.text.match(/<tr class="delivery-delivered">/g) ?? []).length, 5);
      assert.match(html.text, /id="next-page"/);
      assert.match(html.text, /<code>certified_version\.lost<\/code>/, 'the newest deliveries first');
      assert.ok(!/<script/i.test(html.text), 'no script');
      assert.ok(!html.text.includes(receiver.url) && !html.text.includes(secret));
    });

    test('an endpoint that holds its request never holds a publish', async () => {
      await publish(bundles.slow1, 'slow', '1.0.0');
      receiver.answer('/hooks/slow', 'hold');
      await register({ url: `${receiver.url}/hooks/slow`, events: ['run.published'], deployment: 'slow' });
      await publish(bundles.slow2, 'slow', '1.1.0');
      const [held] = await receiver.waitFor((request) => request.path === '/hooks/slow');
      // The endpoint holds the delivery of 1.1.0 (the worker's one attempt, bounded by its timeout),
      // and the next publish is answered all the same, before the endpoint answers anything.
      await publish(bundles.slow3, 'slow', '1.2.0');
      assert.equal(held?.answered, undefined, 'the endpoint has still not answered');
      receiver.answer('/hooks/slow', 200);
      receiver.release(200);
      const delivered = await receiver.waitFor(
        (request) => request.path === '/hooks/slow' && request.answered === 200,
        2,
      );
      assert.deepEqual(delivered.map((request) => bodyOf(request).version).sort(), ['1.1.0', '1.2.0']);
    });

    test('a delivery pending when the registry stops is delivered by the next start', async () => {
      await publish(bundles.later1, 'later', '1.0.0');
      receiver.answer('/hooks/later', 503);
      const { webhook } = await register({
        url: `${receiver.url}/hooks/later`,
        events: ['run.published'],
        deployment: 'later',
      });
      await publish(bundles.later2, 'later', '1.1.0');
      await receiver.waitFor((request) => request.path === '/hooks/later');
      const deliveries = async (): Promise<Delivery | undefined> =>
        (
          (await registry.request(`/api/v1/webhooks/${webhook.id}/deliveries`, { token })).json as {
            deliveries: Delivery[];
          }
        ).deliveries[0];
      for (let poll = 0; poll < 200 && ((await deliveries())?.attempts ?? 0) < 1; poll++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      await registry.restart();
      const before = (await registry.request(`/api/v1/webhooks/${webhook.id}/deliveries`, { token }))
        .json as {
        deliveries: Delivery[];
      };
      assert.equal(before.deliveries[0]?.status === 'delivered', false, 'not delivered before the restart');
      receiver.answer('/hooks/later', 200);
      const [delivered] = await receiver.waitFor(
        (request) => request.path === '/hooks/later' && request.answered === 200,
      );
      assert.equal(bodyOf(delivered as Received).version, '1.1.0');
      let record: Delivery | undefined;
      for (let poll = 0; poll < 200 && record?.status !== 'delivered'; poll++) {
        record = await deliveries();
        if (record?.status !== 'delivered') await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.equal(record?.status, 'delivered');
      assert.ok((record?.attempts ?? 0) >= 2, `attempts ${record?.attempts}`);
      assert.equal(record?.deliveryId, delivered?.headers['x-registry-delivery']);
    });
  });
}
