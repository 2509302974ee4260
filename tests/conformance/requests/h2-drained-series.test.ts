// A series of requests on one HTTP/2 connection (RawClient.sendOverOneConnection: what
// TENANT-H2-COALESCED-CONNECTION-ISOLATED sends) whose connection a front drains — GOAWAY NO_ERROR
// with a last stream id below the series' first stream, the stream not processed, the connection
// closed after a grace period, as a reload or a scale-in does — starts over on a new connection,
// at most three in all: the drain says nothing of what one connection carries, so it must never
// leave the series unanswered (the rule INCOMPLETE). A small node:http2 server, no suite run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { RawClient } from '../../../conformance/requests/raw-client.ts';
import { ensureCertificates } from '../../../reference-server/listeners/certificates.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const HOSTS = { '*.localhost': '127.0.0.1' };
let server: Http2SecureServer;
let port = 0;
let caFile = '';
/** How many of the next connections are drained at their first stream. */
let toDrain = 0;
let sessions = 0;
let served = 0;

before(async () => {
  const certificates = await ensureCertificates(scratchDirectory('h2-drain-'), 'localhost');
  caFile = certificates.caPath;
  server = createSecureServer({ key: certificates.key, cert: certificates.cert });
  const drained = new WeakSet<object>();
  server.on('session', (session) => {
    sessions += 1;
    if (toDrain > 0) {
      toDrain -= 1;
      drained.add(session);
    }
  });
  server.on('stream', (stream) => {
    stream.on('error', () => {});
    const { session } = stream;
    if (session && drained.has(session)) {
      session.goaway(constants.NGHTTP2_NO_ERROR, Math.max(0, (stream.id ?? 1) - 2));
      setTimeout(() => session.destroy(), 50).unref();
      return;
    }
    served += 1;
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    stream.end(JSON.stringify({ served }));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

function series(): { url: string; hostHeader?: string }[] {
  return [
    { url: `https://acme.api.localhost:${port}/v1/customers` },
    { url: `https://acme.api.localhost:${port}/v1/customers`, hostHeader: `globex.api.localhost:${port}` },
  ];
}

const client = (): RawClient => new RawClient({ hosts: HOSTS, caFile, protocol: 'h2', timeoutMs: 5_000 });

test('the series’ connection drained at its first stream: started over on a new one, every request answered', async () => {
  [toDrain, sessions, served] = [1, 0, 0];
  const exchanges = await client().sendOverOneConnection(series());
  assert.deepEqual(
    exchanges.map((exchange) => (exchange.kind === 'response' ? exchange.status : exchange.error)),
    [200, 200],
  );
  assert.equal(served, 2, 'both requests of the series were served, on the second connection');
  assert.equal(sessions, 2);
});

test('every connection drained: at most three tried, then the series is judged as it came (never a loop)', async () => {
  [toDrain, sessions, served] = [10, 0, 0];
  const exchanges = await client().sendOverOneConnection(series());
  assert.equal(exchanges[0]?.kind, 'failure');
  assert.equal(served, 0);
  assert.equal(sessions, 3);
  toDrain = 0;
});
