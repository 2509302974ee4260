// Slow and greedy clients against a reference server started with small limits: headers
// trickled byte by byte, headers and URLs over the limits, and hundreds of idle connections. Each
// gets a JSON answer or a close within the limits, and a well-behaved client is served meanwhile.
import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import type { ServerLimits } from '../../reference-server/server.ts';
import { validatorFor } from '../../schemas/validators.ts';
import { LOOPBACK, secretOf, send, startTestServer, type TestServer } from '../support/reference-client.ts';
import { RawTlsConnection, type RawOutcome } from './raw-tls-connection.ts';

/** Small limits so that every time-out here is reached in about a second. */
const LIMITS: ServerLimits = {
  maxHeaderBytes: 12 * 1024,
  headersTimeoutMs: 1_000,
  requestTimeoutMs: 2_000,
  keepAliveTimeoutMs: 1_000,
};
/** How long past a limit the server may take to act on it (Node checks time-outs periodically). */
const ENFORCEMENT_SLACK_MS = 3_000;
const EXCHANGE_TIMEOUT_MS = 5_000;
const IDLE_TLS_CONNECTIONS = 250;
const IDLE_TCP_CONNECTIONS = 100;
const IDLE_PLAIN_HTTP_CONNECTIONS = 50;
const HOST = 'acme.api.localhost';

const validateError = validatorFor('error.schema.json');

let target: TestServer;
let goodRequest: Buffer;
before(async () => {
  target = await startTestServer({ limits: LIMITS });
  goodRequest = requestBytes([
    ['Authorization', `Bearer ${secretOf(target.fixtures, 'key_acme_prod_full')}`],
  ]);
});
after(async () => {
  await target.close();
});

test('a client that trickles its headers byte by byte within the time limit is answered', async () => {
  const connection = await open();
  try {
    // About 170 bytes, each in a TLS record of its own: the server parses them one at a time.
    await connection.trickle(goodRequest, 0);
    const outcome = await connection.readResponse(false, EXCHANGE_TIMEOUT_MS);
    assert.equal(statusOf(outcome), 200);
  } finally {
    connection.close();
  }
});

test('a client that trickles its headers past the time limit gets 408 and is closed, others are served meanwhile', async () => {
  const slow = await open();
  try {
    const started = Date.now();
    // One byte every 50 ms: the headers would take about 8 s, far past the 1 s limit.
    const trickling = slow.trickle(goodRequest, 50);
    assert.equal(
      await wellBehavedStatus(),
      200,
      'a well-behaved client is served while the slow one trickles',
    );
    await trickling;
    const outcome = await slow.readResponse(false, 0);
    assertJsonError(outcome, 408, 'request_timeout');
    assert.ok(await slow.closedByServer(1_000), 'the slow connection is closed');
    const elapsed = Date.now() - started;
    assert.ok(
      elapsed < LIMITS.headersTimeoutMs + ENFORCEMENT_SLACK_MS,
      `the headers time limit was enforced after ${elapsed} ms (limit ${LIMITS.headersTimeoutMs} ms)`,
    );
  } finally {
    slow.close();
  }
});

test('headers over the size limit get 431 with a JSON error body', async () => {
  const oversized = requestBytes([['X-Padding', 'a'.repeat(LIMITS.maxHeaderBytes)]]);
  assertJsonError(await exchangeOnce(oversized), 431, 'request_header_fields_too_large');
  // Many small headers add up the same way.
  const many = requestBytes(Array.from({ length: 400 }, (_, index) => [`X-Header-${index}`, 'v'.repeat(30)]));
  assertJsonError(await exchangeOnce(many), 431, 'request_header_fields_too_large');
  assert.equal(await wellBehavedStatus(), 200);
});

test('a URL over 8 KiB gets 414, and one over the header limit 431, both with a JSON error body', async () => {
  const long = requestBytes([], `/v1/customers?q=${'x'.repeat(9 * 1024)}`);
  assertJsonError(await exchangeOnce(long), 414, 'uri_too_long');
  const longer = requestBytes([], `/v1/customers?q=${'x'.repeat(LIMITS.maxHeaderBytes)}`);
  assertJsonError(await exchangeOnce(longer), 431, 'request_header_fields_too_large');
  assert.equal(await wellBehavedStatus(), 200);
});

test('hundreds of idle connections leave the server responsive, and are closed within the limits', async () => {
  // Connections that completed TLS and send nothing, TCP connections that never start TLS, and
  // connections to the plain-HTTP listener that send nothing.
  const idleTls = await Promise.all(Array.from({ length: IDLE_TLS_CONNECTIONS }, () => open()));
  const idleTcp = await Promise.all([
    ...Array.from({ length: IDLE_TCP_CONNECTIONS }, () => openTcp(target.server.httpsPort)),
    ...Array.from({ length: IDLE_PLAIN_HTTP_CONNECTIONS }, () => openTcp(target.server.httpPort ?? 0)),
  ]);
  try {
    const started = Date.now();
    for (let round = 0; round < 10; round += 1) {
      assert.equal(await wellBehavedStatus(), 200, `request ${round} of a well-behaved client`);
    }
    const deadline = LIMITS.headersTimeoutMs + ENFORCEMENT_SLACK_MS - (Date.now() - started);
    const tlsClosed = await Promise.all(idleTls.map((connection) => connection.closedByServer(deadline)));
    assert.equal(
      tlsClosed.filter(Boolean).length,
      IDLE_TLS_CONNECTIONS,
      'idle TLS connections closed by the server',
    );
    const tcpClosed = await Promise.all(idleTcp.map((socket) => closedWithin(socket, deadline)));
    assert.deepEqual(
      {
        https: tcpClosed.slice(0, IDLE_TCP_CONNECTIONS).filter(Boolean).length,
        plain: tcpClosed.slice(IDLE_TCP_CONNECTIONS).filter(Boolean).length,
      },
      { https: IDLE_TCP_CONNECTIONS, plain: IDLE_PLAIN_HTTP_CONNECTIONS },
      'connections without a TLS handshake, and idle plain-HTTP connections, closed by the server',
    );
    assert.equal(await wellBehavedStatus(), 200, 'the server still answers after closing them');
  } finally {
    for (const connection of idleTls) connection.close();
    for (const socket of idleTcp) socket.destroy();
  }
});

function requestBytes(headers: ReadonlyArray<readonly [string, string]>, path = '/v1/customers'): Buffer {
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${HOST}`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

function open(): Promise<RawTlsConnection> {
  return RawTlsConnection.open({ port: target.server.httpsPort, ca: target.ca, servername: HOST });
}

function openTcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: LOOPBACK, port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function closedWithin(socket: Socket, timeoutMs: number): Promise<boolean> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.on('error', () => {});
    socket.resume();
  });
}

async function exchangeOnce(request: Buffer): Promise<RawOutcome> {
  const connection = await open();
  try {
    return await connection.exchange(request, false, EXCHANGE_TIMEOUT_MS);
  } finally {
    connection.close();
  }
}

/** The status a well-behaved client gets, on a connection of its own. */
async function wellBehavedStatus(): Promise<number> {
  const secret = secretOf(target.fixtures, 'key_acme_prod_full');
  const reply = await send(target, { headers: [['Authorization', `Bearer ${secret}`]] });
  return reply.status;
}

function statusOf(outcome: RawOutcome): number | string {
  return outcome.kind === 'response' ? outcome.response.status : `no answer (${outcome.kind})`;
}

function assertJsonError(outcome: RawOutcome, status: number, code: string): void {
  assert.equal(statusOf(outcome), status);
  if (outcome.kind !== 'response') return;
  assert.match(outcome.response.headers.get('content-type')?.[0] ?? '', /^application\/json/);
  const body = JSON.parse(outcome.response.body.toString('utf8')) as { error?: { code?: string } };
  assert.ok(validateError(body), 'the error body is valid against error.schema.json');
  assert.equal(body.error?.code, code);
}
