// Every answer of the reference server leaves through the front door's one writer and is logged:
// not only the requests a site answers, but what Node hands over without a response to write to
// (a client error, a CONNECT over HTTP/1.1) and a CONNECT over HTTP/2, on both listeners. Both
// listeners' client errors are answered from one table.
import assert from 'node:assert/strict';
import { connect as http2Connect } from 'node:http2';
import { Writable, type Duplex } from 'node:stream';
import { describe, test } from 'node:test';
import { clientErrorCode } from '../../../reference-server/front-door/client-errors.ts';
import { refuseOnSocket } from '../../../reference-server/front-door/respond.ts';
import type { AccessLogEntry } from '../../../reference-server/http/access-log.ts';
import { CORRECT_STEPS } from '../../../reference-server/steps/server-steps.ts';
import { hostOf, LOOPBACK, sendRaw, testServerPerSuite } from '../../support/reference-client.ts';

type LogEntry = { method: string; path: string; status: number; errorCode?: string; transport: string };

describe('reference server: every answer leaves through the front door and is logged', () => {
  const target = testServerPerSuite();

  const entries = (): LogEntry[] => target().accessLog.map((line) => JSON.parse(line) as LogEntry);
  /** The log lines a step added, once it has settled. */
  async function loggedBy(step: () => Promise<unknown>): Promise<LogEntry[]> {
    const before = target().accessLog.length;
    await step();
    return entries().slice(before);
  }

  const malformed = 'GET /v1/customers HTTP/1.1\r\nHost: acme.api.localhost\r\nBad Header\r\n\r\n';
  const connectRequest = `CONNECT ${hostOf('acme')}:443 HTTP/1.1\r\nHost: ${hostOf('acme')}:443\r\n\r\n`;

  for (const [transport, plain, code, status] of [
    ['https', false, 'bad_request', 400],
    ['http', true, 'https_required', 403],
  ] as const) {
    test(`a malformed request on the ${transport} listener: answered ${status} ${code}, and logged`, async () => {
      let reply: Awaited<ReturnType<typeof sendRaw>> | undefined;
      const logged = await loggedBy(async () => (reply = await sendRaw(target(), malformed, { plain })));
      assert.equal(reply?.status, status);
      assert.deepEqual(
        logged.map(({ method, path, status, errorCode, transport }) => ({
          method,
          path,
          status,
          errorCode,
          transport,
        })),
        [{ method: '', path: '', status, errorCode: code, transport }],
      );
    });
  }

  for (const [transport, plain, code, status] of [
    ['https', false, 'method_not_allowed', 405],
    ['http', true, 'https_required', 403],
  ] as const) {
    test(`CONNECT over HTTP/1.1 on the ${transport} listener: answered ${status} ${code}, and logged`, async () => {
      let reply: Awaited<ReturnType<typeof sendRaw>> | undefined;
      const logged = await loggedBy(async () => (reply = await sendRaw(target(), connectRequest, { plain })));
      assert.equal(reply?.status, status);
      assert.equal(logged.length, 1);
      assert.equal(logged[0]?.method, 'CONNECT');
      assert.equal(logged[0]?.status, status);
      assert.equal(logged[0]?.errorCode, code);
      assert.equal(logged[0]?.transport, transport);
    });
  }

  test('CONNECT over HTTP/2: answered 405 method_not_allowed with the JSON error, and logged', async () => {
    const session = http2Connect(`https://${hostOf('acme')}:${target().server.httpsPort}`, {
      ca: target().ca,
      host: LOOPBACK,
      servername: hostOf('acme'),
    });
    try {
      const logged = await loggedBy(
        () =>
          new Promise<void>((resolve, reject) => {
            const stream = session.request({ ':method': 'CONNECT', ':authority': `${hostOf('acme')}:443` });
            let body = '';
            let status = 0;
            stream.on('response', (headers) => (status = Number(headers[':status'])));
            stream.setEncoding('utf8');
            stream.on('data', (chunk: string) => (body += chunk));
            stream.on('error', reject);
            stream.on('end', () => {
              try {
                assert.equal(status, 405);
                assert.equal(
                  (JSON.parse(body) as { error: { code: string } }).error.code,
                  'method_not_allowed',
                );
                resolve();
              } catch (error) {
                reject(error instanceof Error ? error : new Error(String(error)));
              }
            });
          }),
      );
      assert.equal(logged.length, 1);
      assert.equal(logged[0]?.method, 'CONNECT');
      assert.equal(logged[0]?.status, 405);
    } finally {
      session.close();
    }
  });
});

test('client errors of both listeners are answered from one table', () => {
  const error = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });
  const rows = ['HPE_HEADER_OVERFLOW', 'ERR_HTTP_REQUEST_TIMEOUT', 'HPE_INVALID_METHOD', 'ECONNRESET'];
  const table = rows.map((code) => [
    code,
    clientErrorCode(error(code), 'https'),
    clientErrorCode(error(code), 'http'),
  ]);
  assert.deepEqual(table, [
    ['HPE_HEADER_OVERFLOW', 'request_header_fields_too_large', 'request_header_fields_too_large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 'request_timeout', 'https_required'],
    ['HPE_INVALID_METHOD', 'bad_request', 'https_required'],
    // A TLS or socket failure: a connection that cannot carry an answer is closed, not answered.
    ['ECONNRESET', undefined, undefined],
  ]);
});

test('a refusal on a socket is logged once: a client error Node reports again on a connection already answered is not', () => {
  // Node reports a header section too large again for each later chunk of the same request, once
  // the 431 is written and the connection ending: one refusal, one log line.
  const logged: AccessLogEntry[] = [];
  const outlet = {
    steps: CORRECT_STEPS,
    log: (entry: AccessLogEntry) => logged.push(entry),
    journal: undefined,
  };
  const written: Buffer[] = [];
  const socket = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk);
      done();
    },
  });
  const refusal = { code: 'request_header_fields_too_large', transport: 'https' } as const;
  refuseOnSocket(outlet, socket as unknown as Duplex, refusal);
  refuseOnSocket(outlet, socket as unknown as Duplex, refusal);
  refuseOnSocket(outlet, socket as unknown as Duplex, refusal);
  assert.equal(written.length, 1);
  assert.match(written[0]?.toString() ?? '', /^HTTP\/1\.1 431 /);
  assert.deepEqual(
    logged.map(({ status, errorCode }) => ({ status, errorCode })),
    [{ status: 431, errorCode: 'request_header_fields_too_large' }],
  );
});
