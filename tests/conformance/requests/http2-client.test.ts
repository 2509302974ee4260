// The raw client over HTTP/2 (conformance/requests/h2-transmit.ts): the Host a rule sets is the
// request's :authority, the fields go as the rule set them, the answer reads like an HTTP/1.1
// one; what Node's client will not send (a name twice, a block over several frames) is written by
// hand; several requests can share one connection; what ALPN offers decides the protocols of a run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { RawClient } from '../../../conformance/requests/raw-client.ts';
import type { Exchange } from '../../../conformance/requests/exchange.ts';
import { offeredProtocols, parseProtocols } from '../../../conformance/requests/protocols.ts';
import { ensureCertificates } from '../../../reference-server/listeners/certificates.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const HOSTS = { '*.localhost': '127.0.0.1' };
let server: Http2SecureServer;
let h1Only: HttpsServer;
let caFile: string;

/** Echoes what it got: the protocol, :authority, SNI and every field line. */
function echoServer(key: string, cert: string): Http2SecureServer {
  return createSecureServer({ key, cert, allowHTTP1: true }, (request, response) => {
    const sni = (request.socket as unknown as { servername?: string }).servername;
    response.writeHead(200, { 'content-type': 'application/json', 'x-echo': 'yes' });
    response.end(
      JSON.stringify({
        version: request.httpVersion,
        authority: request.headers[':authority'] ?? request.headers.host,
        sni,
        raw: request.rawHeaders,
      }),
    );
  });
}

async function listen(instance: Http2SecureServer | HttpsServer): Promise<number> {
  await new Promise<void>((listening) => instance.listen(0, '127.0.0.1', listening));
  return (instance.address() as AddressInfo).port;
}

let port = 0;
let h1Port = 0;
/** The leaf certificate every test server here serves (its CA is `caFile`). */
let leaf: { key: string; cert: string };
/** A server that picks http/1.1 when offered both, and speaks h2 to a client offering h2 alone. */
let prefersH1: HttpsServer;
let prefersH1Port = 0;
before(async () => {
  const directory = scratchDirectory('h2-client-');
  const certificates = await ensureCertificates(directory, 'localhost');
  caFile = certificates.caPath;
  leaf = { key: certificates.key, cert: certificates.cert };
  server = echoServer(certificates.key, certificates.cert);
  h1Only = createHttpsServer({ key: certificates.key, cert: certificates.cert }, (_request, response) =>
    response.end('{}'),
  );
  prefersH1 = createHttpsServer(
    { key: certificates.key, cert: certificates.cert, ALPNProtocols: ['http/1.1', 'h2'] },
    (_request, response) => response.end('{}'),
  );
  [port, h1Port, prefersH1Port] = [await listen(server), await listen(h1Only), await listen(prefersH1)];
});
after(() => {
  server.close();
  h1Only.close();
  prefersH1.close();
});

test('over HTTP/2 the rule’s Host is the :authority, on a connection whose SNI is the URL’s', async () => {
  const client = new RawClient({ hosts: HOSTS, caFile, protocol: 'h2' });
  const exchange = await client.send({
    url: `https://acme.api.localhost:${port}/v1/customers`,
    hostHeader: `globex.api.localhost:${port}`,
    headers: [['Authorization', 'Bearer x']],
  });
  assert.equal(exchange.kind, 'response');
  if (exchange.kind !== 'response') return;
  const echoed = JSON.parse(exchange.bodyText) as {
    version: string;
    authority: string;
    sni: string;
    raw: string[];
  };
  assert.equal(echoed.version, '2.0');
  assert.equal(echoed.authority, `globex.api.localhost:${port}`);
  assert.equal(echoed.sni, 'acme.api.localhost');
  assert.ok(echoed.raw.includes('authorization') && !echoed.raw.includes('host'));
  assert.equal(exchange.headers['x-echo'], 'yes');
  assert.equal(exchange.request.protocol, 'h2');
});

interface Echo {
  version: string;
  authority: string;
  sni: string;
  raw: string[];
}

function echoOf(exchange: Exchange): Echo {
  assert.equal(exchange.kind, 'response', exchange.kind === 'failure' ? exchange.error : '');
  return JSON.parse(exchange.kind === 'response' ? exchange.bodyText : '{}') as Echo;
}

/** The values of `name` in an echoed raw header list, in order. */
function valuesOf(raw: readonly string[], name: string): string[] {
  return raw.flatMap((field, index) => (index % 2 === 0 && field === name ? [raw[index + 1] ?? ''] : []));
}

test('two fields of one name go over HTTP/2 in one header block written by hand, the answer read as usual', async () => {
  const client = new RawClient({ hosts: HOSTS, caFile, protocol: 'h2' });
  const exchange = await client.send({
    url: `https://acme.api.localhost:${port}/v1/customers`,
    headers: [
      ['Authorization', 'Bearer a'],
      ['Authorization', 'Bearer b'],
    ],
  });
  const echoed = echoOf(exchange);
  assert.equal(echoed.version, '2.0');
  assert.deepEqual(valuesOf(echoed.raw, 'authorization'), ['Bearer a', 'Bearer b']);
  assert.equal(echoed.authority, `acme.api.localhost:${port}`);
  assert.equal(exchange.request.protocol, 'h2');
  assert.equal(exchange.kind === 'response' && exchange.headers['x-echo'], 'yes');
});

test('a host field beside the :authority, and a header block split over CONTINUATION frames', async () => {
  const client = new RawClient({ hosts: HOSTS, caFile, protocol: 'h2' });
  const beside = echoOf(
    await client.send({
      url: `https://acme.api.localhost:${port}/v1/customers`,
      hostField: `globex.api.localhost:${port}`,
    }),
  );
  assert.deepEqual(valuesOf(beside.raw, ':authority'), [`acme.api.localhost:${port}`]);
  assert.deepEqual(valuesOf(beside.raw, 'host'), [`globex.api.localhost:${port}`]);

  const split = await client.send({
    url: `https://acme.api.localhost:${port}/v1/customers`,
    headers: [['X-Padding', 'p'.repeat(200)]],
    headerFrames: 3,
  });
  assert.deepEqual(valuesOf(echoOf(split).raw, 'x-padding'), ['p'.repeat(200)]);
  assert.match(split.request.note ?? '', /3 frames/);
});

test('requests over one connection: the SNI is the first URL host, each :authority its own', async () => {
  const client = new RawClient({ hosts: HOSTS, caFile, protocol: 'h2' });
  const [first, second] = await client.sendOverOneConnection([
    { url: `https://acme.api.localhost:${port}/v1/customers` },
    { url: `https://globex.api.localhost:${port}/v1/customers` },
  ]);
  assert.ok(first && second);
  assert.equal(echoOf(first).sni, 'acme.api.localhost');
  assert.equal(echoOf(second).sni, 'acme.api.localhost');
  assert.equal(echoOf(second).authority, `globex.api.localhost:${port}`);
  // The reports say that a curl line can't send the second one this way (report/curl.ts).
  assert.doesNotMatch(first.request.note ?? '', /shared/);
  assert.match(second.request.note ?? '', /on a connection shared with the requests before it/);
  assert.equal(await client.agreesToHttp2(`https://acme.api.localhost:${port}/v1`), true);
  assert.equal(await client.agreesToHttp2(`https://acme.api.localhost:${h1Port}/v1`), false);
  assert.equal(await client.agreesToHttp2(`https://acme.api.localhost:${prefersH1Port}/v1`), true);
});

test('HTTP/2 by prior knowledge to a port that closes at once or answers HTTP/1.1: no answer, never a status 0', async () => {
  const servers = [
    createNetServer((socket) => socket.end()),
    createNetServer((socket) => socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n')),
  ];
  try {
    for (const plain of servers) {
      await new Promise<void>((listening) => plain.listen(0, '127.0.0.1', listening));
      const client = new RawClient({ hosts: HOSTS, caFile });
      const exchange = await client.send({
        url: `http://acme.api.localhost:${(plain.address() as AddressInfo).port}/v1/customers`,
        priorKnowledgeH2: true,
      });
      assert.equal(exchange.kind, 'failure', JSON.stringify(exchange.kind === 'response' && exchange.status));
      assert.equal(exchange.request.protocol, 'h2');
    }
  } finally {
    for (const plain of servers) plain.close();
  }
});

test('on one connection, a request after the server closed it (GOAWAY) is refused, and nothing throws later', async () => {
  const closing = createSecureServer(leaf, (request, response) => {
    response.writeHead(request.headers[':authority']?.startsWith('acme.') ? 200 : 421);
    response.end('{}');
    // Misdirected: the connection is closed for new streams (RFC 9113 §6.8).
    if (!request.headers[':authority']?.startsWith('acme.')) request.stream.session?.close();
  });
  const closingPort = await listen(closing);
  try {
    const client = new RawClient({ hosts: HOSTS, caFile, protocol: 'h2', timeoutMs: 2_000 });
    const exchanges = await client.sendOverOneConnection([
      { url: `https://acme.api.localhost:${closingPort}/v1/customers` },
      { url: `https://globex.api.localhost:${closingPort}/v1/customers` },
      { url: `https://globex.api.localhost:${closingPort}/v1/customers` },
    ]);
    assert.deepEqual(
      exchanges.map((exchange) => (exchange.kind === 'response' ? exchange.status : exchange.kind)),
      [200, 421, 'failure'],
    );
    // Past the time limit of the refused request: its timer must not fire into a closed exchange.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
  } finally {
    closing.close();
  }
});

test('ALPN decides the protocols of a run; --protocols names h1, h2 or both', async () => {
  const options = { hosts: HOSTS, ca: [readFileSync(caFile, 'utf8')], timeoutMs: 5000 };
  assert.deepEqual(await offeredProtocols(`https://acme.api.localhost:${port}/v1`, options), ['h1', 'h2']);
  assert.deepEqual(await offeredProtocols(`https://acme.api.localhost:${h1Port}/v1`, options), ['h1']);
  assert.deepEqual(parseProtocols('h2, H1'), { protocols: ['h1', 'h2'] });
  assert.ok('error' in parseProtocols('h3'));
  assert.ok('error' in parseProtocols(''));
});
