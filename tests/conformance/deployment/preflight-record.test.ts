// The preflight's one keyless GET per declared URL reaches the deployment before any rule: the
// run's record keeps it as sent and answered (every header field, in order and spelling, over
// HTTP/1.1 and HTTP/2; the status and every header field of the answer), and exchanges.har lists
// it as the preflight's. Servers here keep what they received, byte for byte.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Stream } from 'node:http2';
import { ensureCertificates } from '../../../reference-server/listeners/certificates.ts';
import { reach } from '../../../conformance/deployment/reach.ts';
import { http1Head } from '../../../conformance/deployment/preflight-exchange.ts';
import { buildHar, PREFLIGHT } from '../../../conformance/report/har.ts';
import type { NameValue, RecordedExchange } from '../../../conformance/requests/exchange-record.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const HOSTS = { '*.localhost': '127.0.0.1', localhost: '127.0.0.1' };

/** What the servers answer: a status and header fields, a repeated one among them. */
const ANSWER_FIELDS: NameValue[] = [
  { name: 'content-type', value: 'application/json' },
  { name: 'set-cookie', value: 'AWSALB=one; Path=/' },
  { name: 'set-cookie', value: 'AWSALBCORS=two; Path=/; Secure' },
  { name: 'x-front', value: 'edge-7' },
];

describe("the preflight's request is recorded as it went over the wire", () => {
  let ca: string[];
  let http1: TlsServer;
  let http2: Http2SecureServer;
  /** Each request the HTTP/1.1 server received: its head, as bytes in latin1. */
  const http1Heads: string[] = [];
  /** Each request the HTTP/2 server received: its raw header list (name, value, name, value…). */
  const http2Heads: string[][] = [];

  before(async () => {
    const certificates = await ensureCertificates(scratchDirectory('preflight-record-'), 'localhost');
    ca = [readFileSync(certificates.caPath, 'utf8')];
    http1 = createTlsServer(
      { key: certificates.key, cert: certificates.cert, ALPNProtocols: ['http/1.1'] },
      (socket) => {
        let received = '';
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          const end = received.indexOf('\r\n\r\n');
          if (end === -1) return;
          http1Heads.push(received.slice(0, end));
          const fields = ANSWER_FIELDS.map(({ name, value }) => `${name}: ${value}\r\n`).join('');
          socket.end(`HTTP/1.1 401 Unauthorized\r\n${fields}content-length: 2\r\n\r\n{}`);
        });
      },
    );
    http2 = createSecureServer({ key: certificates.key, cert: certificates.cert, allowHTTP1: false });
    http2.on(
      'stream',
      (stream: ServerHttp2Stream, _headers: unknown, _flags: unknown, rawHeaders: string[]) => {
        http2Heads.push(rawHeaders);
        const headers: Record<string, string | string[]> = { ':status': '403' };
        for (const { name, value } of ANSWER_FIELDS) {
          const had = headers[name];
          headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
        }
        stream.respond(headers);
        stream.end('{}');
      },
    );
    http1.listen(0, '127.0.0.1');
    http2.listen(0, '127.0.0.1');
    await Promise.all([once(http1, 'listening'), once(http2, 'listening')]);
  });

  after(() => {
    http1.close();
    http2.close();
  });

  async function preflightOf(url: string, alpn: string[]): Promise<RecordedExchange[]> {
    const exchanges: RecordedExchange[] = [];
    const problem = await reach(url, {
      hosts: HOSTS,
      ca,
      timeoutMs: 10_000,
      caFileSet: true,
      alpn,
      onExchange: (exchange) => exchanges.push(exchange),
    });
    assert.equal(problem, undefined, 'the URL answers HTTP');
    return exchanges;
  }

  test('over HTTP/1.1: Host, Accept, Connection exactly as sent; the status and every field of the answer', async () => {
    const { port } = http1.address() as AddressInfo;
    const url = `https://api.localhost:${port}/v1`;
    const [exchange, ...more] = await preflightOf(url, ['http/1.1']);
    assert.equal(more.length, 0, 'one request per URL');
    assert.ok(exchange);
    const [requestLine, ...lines] = (http1Heads.at(-1) ?? '').split('\r\n');
    assert.equal(requestLine, 'GET /v1/customers HTTP/1.1');
    assert.equal(exchange.request.method, 'GET');
    assert.equal(exchange.request.url, `${url}/customers`);
    assert.equal(exchange.request.httpVersion, undefined, 'HTTP/1.1');
    const received = lines.map((line) => {
      const colon = line.indexOf(':');
      return { name: line.slice(0, colon), value: line.slice(colon + 1).trim() };
    });
    assert.deepEqual(exchange.request.headers, received, 'every field, in order and spelling');
    assert.equal(exchange.response?.status, 401);
    assert.deepEqual(exchange.response?.headers, [...ANSWER_FIELDS, { name: 'content-length', value: '2' }]);
  });

  test('over HTTP/2: the :authority (as Host) and Accept exactly as sent; the status and every field of the answer', async () => {
    const { port } = http2.address() as AddressInfo;
    const url = `https://api.localhost:${port}/v1`;
    const [exchange, ...more] = await preflightOf(url, ['h2']);
    assert.equal(more.length, 0, 'one request per URL');
    assert.ok(exchange);
    const raw = http2Heads.at(-1) ?? [];
    const fields: NameValue[] = [];
    const pseudo = new Map<string, string>();
    for (let index = 0; index + 1 < raw.length; index += 2) {
      const name = raw[index] ?? '';
      const value = raw[index + 1] ?? '';
      if (name === ':authority') fields.push({ name: 'host', value });
      else if (name.startsWith(':')) pseudo.set(name, value);
      else fields.push({ name, value });
    }
    assert.equal(pseudo.get(':method'), 'GET');
    assert.equal(pseudo.get(':path'), '/v1/customers');
    assert.equal(exchange.request.url, `${url}/customers`);
    assert.equal(exchange.request.httpVersion, 'HTTP/2');
    assert.deepEqual(
      [...exchange.request.headers].sort((a, b) => a.name.localeCompare(b.name)),
      fields.sort((a, b) => a.name.localeCompare(b.name)),
      'every field sent, the :authority as the Host it stands for',
    );
    assert.equal(exchange.response?.status, 403);
    const answered = (exchange.response?.headers ?? []).filter(({ name }) => name !== 'date');
    assert.deepEqual(answered, ANSWER_FIELDS);
  });

  test("exchanges.har lists the preflight's request as the preflight's, with exactly its fields", async () => {
    const { port } = http1.address() as AddressInfo;
    const [exchange] = await preflightOf(`https://api.localhost:${port}/v1`, ['http/1.1']);
    assert.ok(exchange);
    const har = buildHar([{ madeBy: PREFLIGHT, exchange }], { name: 'suite', version: '0' });
    const [entry] = har.log.entries;
    assert.ok(entry);
    assert.equal(entry._rule, PREFLIGHT);
    assert.match(entry.comment, /^the preflight .*: keyless; only the status and the header fields/);
    assert.equal(entry.request.method, 'GET');
    assert.equal(entry.request.url, exchange.request.url);
    assert.deepEqual(entry.request.headers, [
      { name: 'Host', value: `api.localhost:${port}` },
      { name: 'Accept', value: 'application/json' },
      { name: 'Connection', value: 'close' },
    ]);
    assert.equal(entry.response.status, 401);
    assert.equal(entry.response.content.comment, 'truncated', 'the body was not read, and the HAR says so');
  });

  test('an answer whose header fields are cut off keeps its status and the whole lines received', () => {
    assert.equal(http1Head('HTTP/1.1 2'), undefined);
    assert.deepEqual(http1Head('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nX-Half: va'), {
      status: 503,
      headers: [{ name: 'Retry-After', value: '1' }],
      complete: false,
    });
  });
});
