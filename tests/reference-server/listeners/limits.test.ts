// The reference server's limits and the requests Node itself would answer: oversized headers get
// 431 and long URLs 414 (JSON, like every error), TLS below 1.2 is refused, and requests an
// ordinary client would not send (no Host, an Expect, CONNECT, garbage) still get a JSON answer.
// After each, a normal request is served, so a limit never takes the server down.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type SecureVersion } from 'node:tls';
import { MAX_URL_LENGTH } from '../../../reference-server/api/request-pipeline.ts';
import { DEFAULT_LIMITS } from '../../../reference-server/server.ts';
import { assertCustomersReply, assertErrorReply } from '../../support/reference-assertions.ts';
import {
  HANG_TIMEOUT_MS,
  LOOPBACK,
  hostOf,
  secretOf,
  send,
  sendRaw,
  startTestServer,
  type TestServer,
} from '../../support/reference-client.ts';

describe('reference server: limits and requests Node would answer itself', () => {
  let target: TestServer;
  let bearer: string;
  before(async () => {
    target = await startTestServer();
    bearer = `Bearer ${secretOf(target.fixtures, 'key_acme_prod_full')}`;
  });
  after(async () => {
    await target.close();
  });

  const stillServes = async (): Promise<void> => {
    assertCustomersReply(await send(target, { headers: [['Authorization', bearer]] }));
  };

  test(`headers over ${DEFAULT_LIMITS.maxHeaderBytes} bytes: 431 request_header_fields_too_large`, async () => {
    const host = hostOf('acme');
    const oneHuge = `X-Big: ${'a'.repeat(DEFAULT_LIMITS.maxHeaderBytes)}\r\n`;
    const many = Array.from({ length: 200 }, (_, i) => `X-Filler-${i}: ${'b'.repeat(100)}\r\n`).join('');
    for (const headers of [oneHuge, many, `Authorization: ${bearer}\r\n${oneHuge}`]) {
      const reply = await sendRaw(target, `GET /v1/customers HTTP/1.1\r\nHost: ${host}\r\n${headers}\r\n`);
      assertErrorReply(reply, { status: 431, code: 'request_header_fields_too_large' }, target.fixtures);
      assert.equal(reply.headers.connection, 'close');
    }
    await stillServes();
  });

  test('many header lines within the size limit: every line counts, so a late second Authorization is still a duplicate', async () => {
    // 1 500 short lines fit in the header size limit; Node's own default keeps only the first
    // 2 000 raw entries (1 000 lines) and would drop the rest unseen.
    const filler = Array.from({ length: 1_500 }, (_, i) => ['X-F', String(i % 10)] as [string, string]);
    const duplicate = await send(target, {
      headers: [['Authorization', bearer], ...filler, ['Authorization', bearer]],
    });
    assertErrorReply(
      duplicate,
      { status: 401, code: 'invalid_api_key', challenge: 'invalid_token' },
      target.fixtures,
    );
    const lateHost = await send(target, {
      headers: [['Authorization', bearer], ...filler, ['Host', hostOf('globex')]],
    });
    assertErrorReply(lateHost, { status: 400, code: 'bad_request' }, target.fixtures);
    // Control: the same lines with one Authorization are served.
    assertCustomersReply(await send(target, { headers: [...filler, ['Authorization', bearer]] }));
  });

  test(`a request target over ${MAX_URL_LENGTH} characters: 414 uri_too_long`, async () => {
    for (const path of [
      `/v1/customers?q=${'a'.repeat(MAX_URL_LENGTH)}`,
      `/v1/${'c'.repeat(MAX_URL_LENGTH)}`,
    ]) {
      // With a valid key too: the limit comes before anything else.
      const reply = await send(target, { path, headers: [['Authorization', bearer]] });
      assertErrorReply(reply, { status: 414, code: 'uri_too_long' }, target.fixtures);
    }
    // Control: just under the limit is served.
    const under = `/v1/customers?q=${'a'.repeat(MAX_URL_LENGTH - '/v1/customers?q='.length)}`;
    assertCustomersReply(await send(target, { path: under, headers: [['Authorization', bearer]] }));
    // A target beyond the whole header limit is stopped by Node's parser first: 431.
    const reply = await send(target, {
      path: `/v1/customers?q=${'a'.repeat(DEFAULT_LIMITS.maxHeaderBytes)}`,
    });
    assertErrorReply(reply, { status: 431, code: 'request_header_fields_too_large' }, target.fixtures);
    await stillServes();
  });

  test('a client that offers only TLS 1.1 or 1.0 is refused; the same client on TLS 1.2 or 1.3 connects', async () => {
    const handshake = (minVersion: SecureVersion, maxVersion: SecureVersion): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect(
          {
            host: LOOPBACK,
            port: target.server.httpsPort,
            ca: target.ca,
            servername: hostOf('acme'),
            minVersion,
            maxVersion,
            // Let this client really offer old versions (OpenSSL's defaults would refuse them on
            // the client side, and the test would then prove nothing about the server).
            ciphers: 'DEFAULT@SECLEVEL=0',
          },
          () => {
            const protocol = socket.getProtocol() ?? 'unknown';
            socket.end();
            resolve(protocol);
          },
        );
        socket.setTimeout(HANG_TIMEOUT_MS, () => socket.destroy(new Error('timeout')));
        socket.on('error', (error: NodeJS.ErrnoException) =>
          resolve(`refused: ${error.code ?? error.message}`),
        );
      });
    // The server answers with a protocol_version alert: the refusal is the server's, not the client's.
    assert.equal(await handshake('TLSv1', 'TLSv1.1'), 'refused: ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
    assert.equal(await handshake('TLSv1.1', 'TLSv1.1'), 'refused: ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
    assert.equal(await handshake('TLSv1', 'TLSv1.2'), 'TLSv1.2');
    assert.equal(await handshake('TLSv1.3', 'TLSv1.3'), 'TLSv1.3');
  });

  test('requests Node would answer without JSON get a JSON answer from the reference', async () => {
    const host = hostOf('acme');
    // HTTP/1.1 without Host: 400 bad_request (Node's own answer would be an empty 400).
    for (const text of [
      `GET /v1/customers HTTP/1.1\r\nAuthorization: ${bearer}\r\n\r\n`,
      `GET /v1/customers HTTP/1.0\r\nAuthorization: ${bearer}\r\n\r\n`,
      `GET /v1/customers HTTP/1.1\r\nHost: ${host}\r\nHost: ${host}\r\nAuthorization: ${bearer}\r\n\r\n`,
    ]) {
      assertErrorReply(await sendRaw(target, text), { status: 400, code: 'bad_request' }, target.fixtures);
    }
    // An unparsable request: 400 bad_request.
    for (const text of [
      'HELLO\r\n\r\n',
      `GET /v1/customers HTTP/9.9\r\nHost: ${host}\r\n\r\n`,
      '\r\n\r\n\0\0\r\n\r\n',
    ]) {
      assertErrorReply(await sendRaw(target, text), { status: 400, code: 'bad_request' }, target.fixtures);
    }
    // CONNECT: 405 with Allow (Node would drop the connection without an answer).
    const connectReply = await sendRaw(target, `CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`);
    assertErrorReply(connectReply, { status: 405, code: 'method_not_allowed' }, target.fixtures);
    assert.equal(connectReply.headers.allow, 'GET, HEAD');
    // An Expect other than 100-continue is ignored (RFC 9110 §10.1.1), not answered 417.
    assertCustomersReply(
      await send(target, {
        headers: [
          ['Authorization', bearer],
          ['Expect', 'the-unexpected'],
        ],
      }),
    );
    assertErrorReply(
      await send(target, { headers: [['Expect', 'the-unexpected']] }),
      { status: 401, code: 'missing_authorization_header', challenge: 'realm' },
      target.fixtures,
    );
    await stillServes();
  });
});
