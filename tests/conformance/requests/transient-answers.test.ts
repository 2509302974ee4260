// A transient answer (429, 502, 503, 504) is never judged: makeExchange (conformance/requests/
// send.ts) sends the same request again, honouring Retry-After or backing off, within
// --max-retries and --retry-budget; still transient at the bound, the exchange is a failure that
// no check takes as a refusal. After a 429 the run's pace drops to what the target allows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RawClient } from '../../../conformance/requests/raw-client.ts';
import type { Exchange } from '../../../conformance/requests/exchange.ts';
import { announcedRate, retryAfterMs, retryDelayMs } from '../../../conformance/requests/transient.ts';
import {
  initialTraffic,
  slowDown,
  spendRetryBudget,
  takeSlot,
  withTraffic,
} from '../../../conformance/requests/shared-pacing.ts';
import { Checks, Inconclusive } from '../../../conformance/judging/checks.ts';
import { KeyNamer } from '../../../conformance/redaction/shown-keys.ts';
import { ENV } from '../../../conformance/env.ts';
import { readRunSettings, useRunSettings } from '../../../conformance/settings.ts';
import { scratchDirectory } from '../../support/scratch.ts';

interface Step {
  status: number;
  retryAfter?: string;
  headers?: Record<string, string>;
}

/** Answers each request with the next scripted status (then 200), counting what it got. */
class ScriptedServer {
  readonly server: Server;
  received: number[] = [];
  #script: Step[] = [];

  constructor() {
    this.server = createServer((request, response) => {
      this.received.push(Date.now());
      const next = this.#script.shift() ?? { status: 200 };
      const headers: Record<string, string> = { 'Content-Type': 'application/json', ...next.headers };
      if (next.retryAfter !== undefined) headers['Retry-After'] = next.retryAfter;
      const body = next.status === 200 ? '{"data":[]}' : `{"error":{"code":"s${next.status}"}}`;
      response.writeHead(next.status, headers).end(body);
    });
  }

  script(steps: Step[]): void {
    this.#script = [...steps];
    this.received = [];
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/customers`;
  }
}

const scripted = new ScriptedServer();
const work = scratchDirectory('transient-');

before(async () => {
  await new Promise<void>((listening) => scripted.server.listen(0, '127.0.0.1', listening));
});
after(() => scripted.server.close());

/** Runs `body` with the run's traffic in a file of its own and the given limits. */
async function withRun<T>(limits: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  const file = join(work, `traffic-${Math.random()}.json`);
  writeFileSync(file, JSON.stringify(initialTraffic(undefined)));
  // The traffic file is a hand-over of the run's processes; the limits are settings, handed as one value.
  Object.assign(process.env, { [ENV.trafficFile]: file });
  useRunSettings(readRunSettings(limits));
  try {
    return await body();
  } finally {
    useRunSettings(undefined);
    for (const name of [ENV.trafficFile]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

function send(told: Exchange[] = []): Promise<Exchange> {
  return new RawClient({ hosts: {}, onExchange: (exchange) => told.push(exchange) }).send({
    url: scripted.url,
  });
}

test('Retry-After in seconds or as an HTTP-date; otherwise backoff that doubles, with jitter', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  assert.equal(retryAfterMs('2', now), 2000);
  assert.equal(retryAfterMs('Tue, 24 Nov 2026 12:00:03 GMT', now), 3000);
  assert.equal(retryAfterMs('Tue, 24 Nov 2026 11:00:00 GMT', now), 0);
  assert.equal(retryAfterMs('soon', now), undefined);
  const answer = (headers: Record<string, string>) =>
    ({ kind: 'response', status: 503, headers, bodyText: '' }) as Parameters<typeof retryDelayMs>[0];
  assert.equal(retryDelayMs(answer({ 'retry-after': '1' }), 3, now), 1000);
  for (const [retries, low, high] of [
    [0, 250, 500],
    [1, 500, 1000],
    [3, 2000, 4000],
  ] as const) {
    assert.equal(
      retryDelayMs(answer({}), retries, now, () => 0),
      low,
    );
    assert.equal(
      retryDelayMs(answer({}), retries, now, () => 1),
      high,
    );
  }
});

test('a rate announced with its window is read; a bare limit without one is not', () => {
  assert.equal(announcedRate({ 'ratelimit-policy': '10;w=1' }), 10);
  assert.equal(announcedRate({ 'ratelimit-policy': '"default";q=100;w=60' }), 100 / 60);
  assert.equal(announcedRate({ 'x-ratelimit-limit': '5' }), undefined);
  assert.equal(announcedRate({ 'ratelimit-policy': 'q=5' }), undefined);
});

test('a 429 then a 503 are sent again, and only the 200 is the answer; each try is told', async () => {
  scripted.script([{ status: 429, retryAfter: '0' }, { status: 503 }]);
  const told: Exchange[] = [];
  const exchange = await withRun({}, () => send(told));
  assert.equal(exchange.kind === 'response' && exchange.status, 200);
  assert.deepEqual(
    exchange.attempts?.map((attempt) => attempt.status),
    [429, 503],
  );
  assert.equal(scripted.received.length, 3);
  assert.deepEqual(
    told.map((each) => (each.kind === 'response' ? each.status : 0)),
    [429, 503, 200],
  );
  assert.equal(told[0]?.retriedAfterMs, 0, 'Retry-After: 0 is honoured');
  assert.ok((told[1]?.retriedAfterMs ?? 0) >= 250, 'without Retry-After the run backs off');
  assert.equal(new Set(told.map((each) => each.request.id)).size, 3, 'each try is an exchange of its own');
});

test('still transient after --max-retries: a failure naming the fix, which no check takes as a refusal', async () => {
  scripted.script(Array.from({ length: 5 }, () => ({ status: 429, retryAfter: '0' })));
  const exchange = await withRun({ [ENV.maxRetries]: '2' }, () => send());
  assert.equal(scripted.received.length, 3, 'the first try and two retries');
  assert.equal(exchange.kind, 'failure');
  assert.ok(exchange.kind === 'failure' && exchange.transient === 429);
  assert.match(exchange.kind === 'failure' ? exchange.error : '', /rate-limited this run.*--max-rps/);
  const check = new Checks(new KeyNamer([]));
  assert.throws(
    () => check.rejected(exchange, 'Plain HTTP', { allowNoResponse: true }),
    (error) => error instanceof Inconclusive && /only transient answers/.test(error.message),
  );
});

test('the retry budget is the whole run’s: once spent, the next transient answer ends its exchange', async () => {
  scripted.script([
    { status: 503, retryAfter: '1' },
    { status: 503, retryAfter: '1' },
  ]);
  const exchange = await withRun({ [ENV.retryBudget]: '1' }, () => send());
  assert.equal(scripted.received.length, 2, 'one retry of 1 s fits the budget, the second does not');
  assert.match(exchange.kind === 'failure' ? exchange.error : '', /retry budget was spent/);
});

test('--max-rps spaces the requests of a run from the start', async () => {
  scripted.script([]);
  const started = Date.now();
  await withRun({ [ENV.maxRps]: '20' }, async () => {
    withTraffic((state) => Object.assign(state, initialTraffic(20)));
    for (let index = 0; index < 5; index++) await send();
  });
  // A lower bound only: a busy machine makes the run slower, never faster than its pace.
  assert.equal(scripted.received.length, 5);
  assert.ok(Date.now() - started >= 4 * 50, 'five requests at 20/s take at least four intervals');
});

test('after a 429 the pace is the announced rate, or a guess from the last second, then what got through between 429s', () => {
  const now = 1_000_000;
  const announced = initialTraffic(undefined);
  slowDown(announced, now, 1000, 10);
  assert.equal(Math.round(1000 / announced.intervalMs), 9, 'a little under the announced 10/s');
  assert.equal(announced.nextSlotAt, now + 1000, 'nobody sends before Retry-After has passed');

  const estimated = initialTraffic(undefined);
  const rate = (): number => Math.round((1000 / estimated.intervalMs) * 100) / 100;
  for (let index = 0; index < 20; index++) takeSlot(estimated, now - 950 + index * 50);
  slowDown(estimated, now, 0, undefined);
  assert.equal(rate(), 5, '20 sent in the last second: a quarter of that, 5/s');
  slowDown(estimated, now + 300, 0, undefined);
  assert.equal(rate(), 5, 'the other workers’ 429s of the same burst change nothing');
  // 8 more got through in the 2 s until the next 429: the target allows about 4/s.
  for (let index = 0; index < 8; index++) takeSlot(estimated, now + 250 * index);
  slowDown(estimated, now + 2000, 0, undefined);
  assert.equal(rate(), 3.6, 'just under what got through between the two 429s');
  const slot = takeSlot(estimated, now + 3000);
  assert.equal(
    Math.round(takeSlot(estimated, now + 3000) - slot),
    Math.round(estimated.intervalMs),
    'slots are one interval apart',
  );
});

test('the budget is spent only while it lasts', () => {
  const state = initialTraffic(undefined);
  assert.equal(spendRetryBudget(state, 700, 1000), true);
  assert.equal(spendRetryBudget(state, 400, 1000), false);
  assert.equal(state.waitedMs, 700);
});

test('a rate announced on a served answer paces the run before any 429', async () => {
  scripted.script([{ status: 200, headers: { 'RateLimit-Policy': '20;w=1' } }]);
  const interval = await withRun({}, async () => {
    await send();
    return withTraffic((state) => state.intervalMs);
  });
  assert.equal(Math.round(1000 / interval), 18, 'just under the announced 20 requests/s');
});

test('Retry-After is read as RFC 9110 §10.2.3 defines it: digits, or an HTTP-date in its three formats', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  assert.equal(retryAfterMs('Tuesday, 24-Nov-26 12:00:03 GMT', now), 3000, 'RFC 850');
  assert.equal(retryAfterMs('Tue Nov 24 12:00:03 2026', now), 3000, 'asctime');
  assert.equal(retryAfterMs('999999', now), 999_999_000);
  assert.ok(
    (retryAfterMs('Fri, 31 Dec 9999 23:59:59 GMT', now) ?? 0) > 1e14,
    'a date in 9999 is far away, not "now"',
  );
  for (const garbage of ['1.5', '-5', 'May 3', '+5', '5 s', 'Tue, 31 Feb 2026 12:00:00 GMT'])
    assert.equal(retryAfterMs(garbage, now), undefined, `"${garbage}" is not a Retry-After value`);
  const answer = { kind: 'response', status: 429, headers: { 'retry-after': '1.5' }, bodyText: '' } as const;
  const wait = retryDelayMs(answer as unknown as Parameters<typeof retryDelayMs>[0], 0, now, () => 0);
  assert.equal(wait, 250, 'an unreadable value falls back to the backoff');
});

for (const retryAfter of ['120', '999999', 'Fri, 31 Dec 9999 23:59:59 GMT']) {
  test(`Retry-After: ${retryAfter}, longer than what is left of the budget, ends the exchange at once and holds back nobody`, async () => {
    scripted.script([{ status: 429, retryAfter }]);
    const { exchange, state } = await withRun({ [ENV.retryBudget]: '60' }, async () => ({
      exchange: await send(),
      state: withTraffic((traffic) => ({ ...traffic })),
    }));
    assert.equal(scripted.received.length, 1, 'not sent again');
    assert.ok(exchange.kind === 'failure' && exchange.transient === 429);
    assert.match(
      exchange.kind === 'failure' ? exchange.error : '',
      /Retry-After .* longer wait than the 60 s left/,
    );
    assert.equal(state.waitedMs, 0, 'nothing of the budget was spent');
    assert.ok(state.nextSlotAt <= Date.now(), 'no worker waits for it');
    assert.equal(state.intervalMs, 0, 'a quota is not a pace: the run is not slowed');
  });
}

test('only transient answers while other requests were served: the error says a front refused these requests', async () => {
  // The first try is refused; while it waits, another request of the run is served.
  scripted.script([{ status: 503, retryAfter: '1' }, { status: 200 }, { status: 503, retryAfter: '0' }]);
  const exchange = await withRun({ [ENV.maxRetries]: '1' }, async () => {
    const refused = send();
    for (let waited = 0; scripted.received.length === 0 && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await send();
    return refused;
  });
  assert.match(
    exchange.kind === 'failure' ? exchange.error : '',
    /^a front refused these requests, not the deployment: it answered 503 to all 2 tries \(--max-retries 1\), while 1 other request of this run was served meanwhile/,
  );
  assert.doesNotMatch(exchange.kind === 'failure' ? exchange.error : '', /healthy/);
  assert.match(
    exchange.kind === 'failure' ? exchange.error : '',
    /the deployment cannot be certified through it\.$/,
  );
});
