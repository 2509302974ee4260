// Plain HTTP (spec §5: "Plain HTTP requests are rejected"): the plain listener answers every
// request 4xx with a JSON error and `Connection: close`, never redirects, never sends HSTS, and
// never serves data — whether or not the request carries a valid key, in a header or in the URL.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { assertErrorReply, assertNoCustomerData } from '../../support/reference-assertions.ts';
import {
  HANG_TIMEOUT_MS,
  LOOPBACK,
  hostOf,
  secretOf,
  send,
  sendRaw,
  testServerPerSuite,
  type Reply,
} from '../../support/reference-client.ts';

describe('reference server: plain HTTP', () => {
  const target = testServerPerSuite();

  const assertRejected = (reply: Reply, label: string): void => {
    assert.ok(reply.status >= 400 && reply.status < 500, `${label}: 4xx, got ${reply.status}`);
    assertErrorReply(reply, { status: 403, code: 'https_required', transport: 'http' }, target().fixtures);
    assert.equal(reply.headers.connection, 'close', `${label}: Connection: close`);
  };

  test('every request is rejected with a JSON error and Connection: close, key or not', async () => {
    const full = secretOf(target().fixtures, 'key_acme_prod_full');
    const dev = secretOf(target().fixtures, 'key_acme_dev_full');
    const cases: Array<{
      label: string;
      tenant?: string;
      sandbox?: boolean;
      path?: string;
      method?: string;
      headers?: Array<[string, string]>;
    }> = [
      { label: 'no key' },
      { label: 'valid key', headers: [['Authorization', `Bearer ${full}`]] },
      { label: 'valid sandbox key', sandbox: true, headers: [['Authorization', `Bearer ${dev}`]] },
      {
        label: 'valid key of another tenant',
        tenant: 'globex',
        headers: [['Authorization', `Bearer ${full}`]],
      },
      { label: 'unknown tenant', tenant: 'umbrella', headers: [['Authorization', `Bearer ${full}`]] },
      { label: 'key in access_token', path: `/v1/customers?access_token=${full}` },
      { label: 'key in api_key', path: `/v1/customers?api_key=${full}` },
      { label: 'key in the path', path: `/v1/${full}/customers` },
      { label: 'unknown path', path: '/nowhere', headers: [['Authorization', `Bearer ${full}`]] },
      {
        label: 'POST',
        method: 'POST',
        headers: [
          ['Authorization', `Bearer ${full}`],
          ['Content-Length', '0'],
        ],
      },
      { label: 'DELETE', method: 'DELETE' },
      {
        label: 'Expect header',
        headers: [
          ['Expect', 'something-else'],
          ['Authorization', `Bearer ${full}`],
        ],
      },
    ];
    for (const { label, tenant, sandbox, path, method, headers } of cases) {
      const reply = await send(target(), {
        plain: true,
        tenant: tenant ?? 'acme',
        environment: sandbox ? 'sandbox' : 'production',
        ...(path ? { path } : {}),
        ...(method ? { method } : {}),
        ...(headers ? { headers } : {}),
      });
      assertRejected(reply, label);
    }
  });

  test('requests a client library would not send get the same JSON rejection', async () => {
    const full = secretOf(target().fixtures, 'key_acme_prod_full');
    for (const [label, text] of [
      ['HTTP/1.1 without Host', `GET /v1/customers HTTP/1.1\r\nAuthorization: Bearer ${full}\r\n\r\n`],
      ['HTTP/1.0', `GET /v1/customers HTTP/1.0\r\nAuthorization: Bearer ${full}\r\n\r\n`],
      ['CONNECT', `CONNECT ${hostOf('acme')}:443 HTTP/1.1\r\nHost: ${hostOf('acme')}:443\r\n\r\n`],
      [
        'absolute-form target()',
        `GET https://${hostOf('acme')}/v1/customers HTTP/1.1\r\nHost: ${hostOf('acme')}\r\n\r\n`,
      ],
    ] as const) {
      assertRejected(await sendRaw(target(), text, { plain: true }), label);
    }
  });

  test('the connection is closed after the one answer: a pipelined second request is never answered', async () => {
    const full = secretOf(target().fixtures, 'key_acme_prod_full');
    const request = `GET /v1/customers HTTP/1.1\r\nHost: ${hostOf('acme')}\r\nAuthorization: Bearer ${full}\r\n\r\n`;
    const port = target().server.httpPort ?? 0;
    const text = await exchangeUntilClose(port, request + request);
    assert.equal(text.match(/^HTTP\/1\.1 /gm)?.length, 1, text);
    assert.match(text, /^HTTP\/1\.1 403 /);
    // The single answer is whole: the server closed the connection after it.
    const [head = '', body = ''] = text.split('\r\n\r\n');
    assert.match(head, /\r\nConnection: close/i);
    assert.equal(Buffer.byteLength(body, 'latin1'), Number(/Content-Length: (\d+)/i.exec(head)?.[1]));
  });

  test('oversized headers on the plain listener: 431 JSON, no HSTS', async () => {
    const text = `GET /v1/customers HTTP/1.1\r\nHost: ${hostOf('acme')}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    const reply = await sendRaw(target(), text, { plain: true });
    assertErrorReply(
      reply,
      { status: 431, code: 'request_header_fields_too_large', transport: 'http' },
      target().fixtures,
    );
    assert.equal(reply.headers.connection, 'close');
  });

  test('plain HTTP sent to the HTTPS port is never served', async () => {
    const full = secretOf(target().fixtures, 'key_acme_prod_full');
    const answer = await exchangeUntilClose(
      target().server.httpsPort,
      `GET /v1/customers HTTP/1.1\r\nHost: ${hostOf('acme')}\r\nAuthorization: Bearer ${full}\r\n\r\n`,
    );
    // Refused, reset or anything but an HTTP success; and no customer data in any case.
    assert.doesNotMatch(answer, /^HTTP\/1\.[01] 2/);
    assertNoCustomerData({ status: 0, headers: {}, rawHeaders: [], body: answer }, target().fixtures);
  });
});

/** Writes `text` on a plain TCP connection and returns everything received until the server closes it. */
function exchangeUntilClose(port: number, text: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const socket = connect({ host: LOOPBACK, port }, () => socket.write(text));
    let received = '';
    socket.setTimeout(HANG_TIMEOUT_MS, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    // A reset counts as a close: what matters is what was received before it.
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
  });
}
