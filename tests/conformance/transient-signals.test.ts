// What a front says below HTTP when it did not process a request (decision 0022): a stream reset
// with REFUSED_STREAM, a graceful GOAWAY before the answer, ENHANCE_YOUR_CALM — sent again like a
// 503, counted, never an ERROR when a retry answers; a reset with PROTOCOL_ERROR stays the
// target's refusal. Each server here acts on the first stream it gets and answers the next.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, createSecureServer, type Http2SecureServer, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RawClient } from '../../conformance/requests/raw-client.ts';
import { isRefusal, type Exchange } from '../../conformance/requests/exchange.ts';
import { initialTraffic, readTraffic } from '../../conformance/requests/shared-pacing.ts';
import { ensureCertificates } from '../../reference-server/listeners/certificates.ts';
import { ENV } from '../../conformance/env.ts';
import { readRunSettings, useRunSettings } from '../../conformance/settings.ts';
import { scratchDirectory } from '../support/scratch.ts';

const work = scratchDirectory('transient-signals-');
const certificates = await ensureCertificates(work, 'localhost');
const servers: Http2SecureServer[] = [];
after(() => {
  for (const server of servers) server.close();
});

/** An HTTP/2 server whose first stream gets `first`; every later one 200. */
async function serverWhoseFirstStream(first: (stream: ServerHttp2Stream) => void): Promise<number> {
  let seen = 0;
  const server = createSecureServer({ key: certificates.key, cert: certificates.cert });
  server.on('stream', (stream) => {
    stream.on('error', () => {});
    seen += 1;
    if (seen === 1) return first(stream);
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    stream.end('{"customers":[]}');
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return (server.address() as AddressInfo).port;
}

/** One request over HTTP/2 in a run of its own (its traffic in a file of its own). */
async function sendOnce(
  port: number,
  env: Record<string, string> = {},
  send: (client: RawClient, url: string) => Promise<Exchange> = (client, url) => client.send({ url }),
): Promise<{ exchange: Exchange; told: Exchange[]; trafficFile: string }> {
  const trafficFile = join(work, `traffic-${Math.random()}.json`);
  writeFileSync(trafficFile, JSON.stringify(initialTraffic(undefined)));
  const saved = { ...process.env };
  // The traffic file is a hand-over of the run's processes; the settings are handed as one value.
  Object.assign(process.env, { [ENV.trafficFile]: trafficFile });
  useRunSettings(readRunSettings(env));
  try {
    const told: Exchange[] = [];
    const client = new RawClient({
      hosts: { '*.localhost': '127.0.0.1' },
      caFile: certificates.caPath,
      protocol: 'h2',
      onExchange: (exchange) => told.push(exchange),
    });
    const exchange = await send(client, `https://acme.api.localhost:${port}/v1/customers`);
    return { exchange, told, trafficFile };
  } finally {
    useRunSettings(undefined);
    for (const name of [ENV.trafficFile]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

for (const [name, act, signal] of [
  [
    'a stream reset with REFUSED_STREAM',
    (stream: ServerHttp2Stream) => stream.close(constants.NGHTTP2_REFUSED_STREAM),
    'RST_STREAM REFUSED_STREAM',
  ],
  [
    'a graceful GOAWAY (NO_ERROR) before the answer',
    (stream: ServerHttp2Stream) => stream.session?.goaway(constants.NGHTTP2_NO_ERROR, 0),
    'GOAWAY NO_ERROR',
  ],
  [
    'a stream reset with ENHANCE_YOUR_CALM',
    (stream: ServerHttp2Stream) => stream.close(constants.NGHTTP2_ENHANCE_YOUR_CALM),
    'RST_STREAM ENHANCE_YOUR_CALM',
  ],
] as const) {
  test(`${name}: sent again on a new connection, the answer judged, the try told with its signal`, async () => {
    const port = await serverWhoseFirstStream(act);
    const { exchange, told, trafficFile } = await sendOnce(port);
    assert.equal(
      exchange.kind === 'response' && exchange.status,
      200,
      JSON.stringify(told.map((each) => each.kind === 'failure' && each.error)),
    );
    assert.deepEqual(
      exchange.attempts?.map((attempt) => attempt.signal),
      [signal],
    );
    assert.equal(told.length, 2);
    assert.equal(told[0]?.kind === 'failure' && told[0].signal, signal);
    assert.ok((told[0]?.retriedAfterMs ?? -1) >= 0, 'the try is told as sent again');
    const paced = (readTraffic(trafficFile)?.intervalMs ?? 0) > 0;
    assert.equal(
      paced,
      signal.endsWith('ENHANCE_YOUR_CALM'),
      'only ENHANCE_YOUR_CALM slows the run, as a 429',
    );
  });
}

test('a stream reset with REFUSED_STREAM on a shared connection (a coalescing client): sent again on that connection', async () => {
  const connections: unknown[] = [];
  const port = await serverWhoseFirstStream((stream) => {
    connections.push(stream.session);
    stream.close(constants.NGHTTP2_REFUSED_STREAM);
  });
  const server = servers.at(-1);
  server?.on('session', (session) => connections.push(session));
  let second: Exchange | undefined;
  const { exchange, told } = await sendOnce(port, {}, async (client, url) => {
    const [first, next] = await client.sendOverOneConnection([{ url }, { url }]);
    second = next;
    if (!first) throw new Error('no exchange came back');
    return first;
  });
  assert.equal(exchange.kind === 'response' && exchange.status, 200);
  assert.deepEqual(
    exchange.attempts?.map((attempt) => attempt.signal),
    ['RST_STREAM REFUSED_STREAM'],
  );
  assert.equal(second?.kind === 'response' && second.status, 200);
  assert.equal(told.length, 3, 'the refused try, its retry and the second request');
  assert.equal(new Set(connections).size, 1, 'every stream went over the one connection');
});

test('a stream reset with PROTOCOL_ERROR is the target’s refusal: not sent again', async () => {
  const port = await serverWhoseFirstStream((stream) => stream.close(constants.NGHTTP2_PROTOCOL_ERROR));
  const { exchange, told } = await sendOnce(port);
  assert.equal(exchange.kind, 'failure');
  assert.ok(exchange.kind === 'failure' && isRefusal(exchange) && exchange.signal === undefined);
  assert.equal(told.length, 1);
});

test('refused on every try: an ERROR that names the signal, never a refusal', async () => {
  const server = createSecureServer({ key: certificates.key, cert: certificates.cert });
  server.on('stream', (stream) => {
    stream.on('error', () => {});
    stream.close(constants.NGHTTP2_REFUSED_STREAM);
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { exchange, told } = await sendOnce((server.address() as AddressInfo).port, {
    [ENV.maxRetries]: '2',
  });
  assert.equal(told.length, 3, 'the first try and two retries');
  assert.ok(exchange.kind === 'failure' && !isRefusal(exchange));
  assert.match(
    exchange.kind === 'failure' ? exchange.error : '',
    /RST_STREAM REFUSED_STREAM to all 3 tries \(--max-retries 2\)/,
  );
});

test('HTTP/1.1: a keep-alive connection closed before any byte of the answer is sent again once, on a new connection', async () => {
  const { request } = await import('@playwright/test');
  const { createServer } = await import('node:http');
  const { ApiClient } = await import('../../conformance/requests/api-client.ts');
  // Answers the first request of each connection, and closes it unanswered at the second.
  const server = createServer((incoming, response) => {
    const socket = incoming.socket as typeof incoming.socket & { served?: number };
    socket.served = (socket.served ?? 0) + 1;
    if (socket.served > 1) return socket.destroy();
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"customers":[]}');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/customers`;
  const context = await request.newContext();
  try {
    const told: Exchange[] = [];
    const api = new ApiClient(context, (exchange) => told.push(exchange));
    assert.equal((await api.get(url)).kind, 'response');
    const second = await api.get(url);
    assert.equal(
      second.kind === 'response' && second.status,
      200,
      JSON.stringify(told.map((each) => each.kind === 'failure' && each.error)),
    );
    assert.deepEqual(
      second.attempts?.map((attempt) => attempt.signal),
      ['connection closed before the answer'],
    );
  } finally {
    await context.dispose();
    server.close();
  }
});
