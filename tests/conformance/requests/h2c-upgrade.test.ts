// A plain-HTTP port that switches to HTTP/2 without TLS (`101`, Upgrade: h2c) has not answered
// yet: the raw client reads the answer that follows over HTTP/2 on stream 1 and keeps the switch
// beside it. Before, the exchange ended at the 101, and a rule could only see "101".
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RawClient } from '../../../conformance/requests/raw-client.ts';
import { startH2cPlainPort } from '../../independent-implementation/h2c-plain-port.ts';
import type { Server } from 'node:net';

const HOSTS = { '*.localhost': '127.0.0.1' };
let port: number;
let server: Server;

before(async () => ({ port, server } = await startH2cPlainPort()));
after(() => new Promise((closed) => server.close(closed)));

const UPGRADE = [
  ['Connection', 'Upgrade, HTTP2-Settings'],
  ['Upgrade', 'h2c'],
  ['HTTP2-Settings', ''],
] as const;

test('Upgrade: h2c answered 101 then 403 over HTTP/2: the exchange is the 403, the switch told beside it', async () => {
  const client = new RawClient({ hosts: HOSTS, timeoutMs: 10_000 });
  const exchange = await client.send({
    url: `http://acme.api.localhost:${port}/v1/customers`,
    headers: [['Accept', 'application/json'], ...UPGRADE],
  });
  assert.equal(exchange.kind, 'response', JSON.stringify(exchange));
  assert.equal(exchange.kind === 'response' && exchange.status, 403);
  assert.match(exchange.kind === 'response' ? exchange.bodyText : '', /https_required/);
  assert.equal(exchange.switchedProtocols, '101 Switching Protocols (Upgrade: h2c)');
});

test('prior knowledge answered 403 over HTTP/2, no switch; a plain request 403 over HTTP/1.1', async () => {
  const client = new RawClient({ hosts: HOSTS, timeoutMs: 10_000 });
  const url = `http://acme.api.localhost:${port}/v1/customers`;
  const prior = await client.send({ url, priorKnowledgeH2: true });
  assert.equal(prior.kind === 'response' && prior.status, 403, JSON.stringify(prior));
  assert.equal(prior.switchedProtocols, undefined);
  const plain = await client.send({ url });
  assert.equal(plain.kind === 'response' && plain.status, 403, JSON.stringify(plain));
  assert.equal(plain.switchedProtocols, undefined);
});
