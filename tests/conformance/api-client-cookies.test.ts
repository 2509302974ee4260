// The suite's HTTP client sends no cookie a deployment set (api-client.ts): its request context's
// cookie store is empty before every request. Emptying it is a call into Playwright, so the client
// empties it only when it is not known empty: at its first request, after an answer that set a
// cookie, after a try that failed. Counted here on a real request context, against a local server
// that sets a cookie on one path; the server says which requests carried a Cookie field.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request, type APIRequestContext } from '@playwright/test';
import { ApiClient } from '../../conformance/requests/api-client.ts';

let server: Server;
let base = '';
const cookiesSeen: (string | undefined)[] = [];

before(async () => {
  server = createServer((incoming, response) => {
    cookiesSeen.push(incoming.headers.cookie);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (incoming.url === '/sets-cookie') headers['set-cookie'] = 'sid=abc; Path=/';
    response.writeHead(200, headers).end('{}');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

/** The context, its clearCookies calls counted. */
function counted(context: APIRequestContext): { context: APIRequestContext; clears: () => number } {
  let clears = 0;
  const wrapped = new Proxy(context, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (name !== 'clearCookies' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        clears += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { context: wrapped, clears: () => clears };
}

test('the cookie store is emptied when not known empty, and no cookie an answer set is ever sent back', async () => {
  const context = await request.newContext();
  try {
    const { context: watched, clears } = counted(context);
    const api = new ApiClient(watched);
    const status = async (path: string) => {
      const exchange = await api.get(`${base}${path}`);
      return exchange.kind === 'response' ? exchange.status : exchange.error;
    };
    cookiesSeen.length = 0;
    assert.equal(await status('/plain'), 200);
    // The context is the caller's: at the first request its store is not known empty.
    assert.equal(clears(), 1);
    assert.equal(await status('/plain'), 200);
    assert.equal(await status('/plain'), 200);
    // Answers that set no cookie leave it empty: not emptied again.
    assert.equal(clears(), 1);
    assert.equal(await status('/sets-cookie'), 200);
    assert.equal(await status('/plain'), 200);
    // The answer set one: emptied before the next request, which carries none.
    assert.equal(clears(), 2);
    assert.equal(await status('/plain'), 200);
    assert.equal(clears(), 2);
    assert.deepEqual(cookiesSeen, [undefined, undefined, undefined, undefined, undefined, undefined]);
    // Without the emptying the store would have sent it: Playwright keeps what the answer set.
    await context.get(`${base}/sets-cookie`);
    await context.get(`${base}/plain`);
    assert.equal(cookiesSeen.at(-1), 'sid=abc');
  } finally {
    await context.dispose();
  }
});

test('after a try that failed, the store is emptied before the next request', async () => {
  const context = await request.newContext();
  try {
    const { context: watched, clears } = counted(context);
    const api = new ApiClient(watched);
    assert.equal((await api.get(`${base}/plain`)).kind, 'response');
    assert.equal(clears(), 1);
    // A port nothing listens on (the server's, once closed): the try fails, whatever it may have set is unknown.
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    assert.equal((await api.get(`http://127.0.0.1:${port}/plain`)).kind, 'failure');
    // The store was known empty before it: not emptied then.
    assert.equal(clears(), 1);
    assert.equal((await api.get(`${base}/plain`)).kind, 'response');
    assert.equal(clears(), 2);
  } finally {
    await context.dispose();
  }
});
