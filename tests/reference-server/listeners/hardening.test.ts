// What an attack on the reference server's protocol edges found, each held shut: `100 Continue`
// only after authentication, TLS 1.2 with AEAD suites and forward secrecy only, a `Host` naming
// another port answered 421, and no piece of a key in any access-log field however it is sent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type SecureVersion } from 'node:tls';
import { adminHostname, apiHostname } from '../../../reference-server/http/hosts.ts';
import {
  fixtureUser,
  panelHost,
  PanelClient,
  send,
  startKeyManagementServer,
  type KeyManagementServer,
} from '../../support/key-management-client.ts';
import {
  HANG_TIMEOUT_MS,
  send as sendRequest,
  secretOf,
  type TestServer,
} from '../../support/reference-client.ts';

const LOOPBACK = '127.0.0.1';
const API_HOST = apiHostname('acme', 'production', 'localhost');

describe('reference server hardening', () => {
  let km: KeyManagementServer;
  let key: string;
  before(async () => {
    km = await startKeyManagementServer();
    key = secretOf(km.fixtures, 'key_acme_prod_full');
  });
  after(() => km.close());

  /** Writes `head` on a new TLS connection and returns the first response head the server sends. */
  function firstResponseHead(servername: string, head: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: LOOPBACK, port: km.server.httpsPort, ca: km.ca, servername }, () =>
        socket.write(head),
      );
      let received = '';
      socket.setTimeout(HANG_TIMEOUT_MS, () => socket.destroy(new Error('no answer in time')));
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        const end = received.indexOf('\r\n\r\n');
        if (end !== -1) {
          socket.destroy();
          resolve(received.slice(0, end));
        }
      });
      socket.on('error', reject);
      socket.on('end', () => reject(new Error(`closed after ${JSON.stringify(received)}`)));
    });
  }

  function expectContinueRequest(hostname: string, path: string, authorization?: string): string {
    return [
      `POST ${path} HTTP/1.1`,
      `Host: ${hostname}:${km.server.httpsPort}`,
      ...(authorization ? [`Authorization: ${authorization}`] : []),
      'Content-Type: application/json',
      'Content-Length: 70',
      'Expect: 100-continue',
      '',
      '',
    ].join('\r\n');
  }

  test('Expect: 100-continue gets 100 only once authentication passed; otherwise the final answer at once', async () => {
    const admin = adminHostname('localhost');
    const refused = [
      await firstResponseHead(admin, expectContinueRequest(admin, '/v1/tenants/acme/keys')),
      await firstResponseHead(admin, expectContinueRequest(admin, '/v1/tenants/acme/keys', `Bearer ${key}`)),
      await firstResponseHead(API_HOST, expectContinueRequest(API_HOST, '/v1/customers')),
      await firstResponseHead(
        API_HOST,
        expectContinueRequest(API_HOST, '/v1/customers', 'Bearer mbk_prod_x'),
      ),
    ];
    for (const head of refused) {
      assert.match(head, /^HTTP\/1\.1 401 /, head);
      assert.match(head, /\r\nConnection: close/i, 'a body may follow unread: the connection must end');
    }
    // A panel change without a session: refused (403), no 100.
    const panel = panelHost('acme');
    assert.match(
      await firstResponseHead(panel, expectContinueRequest(panel, '/settings/api/keys')),
      /^HTTP\/1\.1 403 /,
    );
    const allowed = [
      await firstResponseHead(
        admin,
        expectContinueRequest(admin, '/v1/tenants/acme/keys', `Bearer ${km.adminToken}`),
      ),
      await firstResponseHead(API_HOST, expectContinueRequest(API_HOST, '/v1/customers', `Bearer ${key}`)),
    ];
    for (const head of allowed) assert.match(head, /^HTTP\/1\.1 100 Continue/, head);
  });

  test('TLS 1.2 accepts only AEAD suites with ECDHE; TLS 1.3 is unchanged', async () => {
    const handshake = (servername: string, maxVersion: SecureVersion, ciphers?: string): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect(
          {
            host: LOOPBACK,
            port: km.server.httpsPort,
            ca: km.ca,
            servername,
            maxVersion,
            ...(ciphers ? { ciphers: `${ciphers}@SECLEVEL=0` } : {}),
          },
          () => {
            const result = `${socket.getProtocol() ?? '?'} ${socket.getCipher().standardName}`;
            socket.end();
            resolve(result);
          },
        );
        socket.setTimeout(HANG_TIMEOUT_MS, () => socket.destroy(new Error('timeout')));
        socket.on('error', (error: NodeJS.ErrnoException) =>
          resolve(`refused: ${error.code ?? error.message}`),
        );
      });
    for (const servername of [API_HOST, panelHost('acme'), adminHostname('localhost')]) {
      for (const weak of ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA', 'ECDHE-ECDSA-AES128-SHA256']) {
        assert.match(await handshake(servername, 'TLSv1.2', weak), /^refused: /, `${servername} ${weak}`);
      }
      assert.equal(
        await handshake(servername, 'TLSv1.2', 'ECDHE-ECDSA-AES128-GCM-SHA256'),
        'TLSv1.2 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
      );
      assert.equal(
        await handshake(servername, 'TLSv1.2', 'ECDHE-ECDSA-CHACHA20-POLY1305'),
        'TLSv1.2 TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
      );
      assert.match(
        await handshake(servername, 'TLSv1.3'),
        /^TLSv1\.3 TLS_(AES_\d+_GCM|CHACHA20_POLY1305)_SHA\d+$/,
      );
    }
  });

  test('a Host naming a port other than the listener’s gets 421; the listener’s port, or none, is served', async () => {
    const port = km.server.httpsPort;
    const otherPort = port === 65_535 ? 1 : port + 1;
    const withPort = (
      hostname: string,
      path: string,
      value: number | null,
      headers: Record<string, string> = {},
    ) =>
      sendRequest({ server: { httpsPort: port }, ca: km.ca } as unknown as TestServer, {
        host: value === null ? hostname : `${hostname}:${value}`,
        servername: hostname,
        path,
        headers: Object.entries(headers),
      });
    const auth = { Authorization: `Bearer ${key}` };
    const admin = { Authorization: `Bearer ${km.adminToken}` };
    for (const value of [otherPort, 443, 0]) {
      for (const [hostname, path, headers] of [
        [API_HOST, '/v1/customers', auth],
        [panelHost('acme'), '/sign-in', {}],
        [adminHostname('localhost'), '/v1/tenants', admin],
      ] as const) {
        const reply = await withPort(hostname, path, value, headers);
        assert.equal(reply.status, 421, `${hostname}:${value}`);
        assert.equal(
          (JSON.parse(reply.body) as { error: { code: string } }).error.code,
          'misdirected_request',
        );
      }
    }
    for (const value of [port, null]) {
      assert.equal((await withPort(API_HOST, '/v1/customers', value, auth)).status, 200);
      assert.equal((await withPort(panelHost('acme'), '/sign-in', value)).status, 200);
      assert.equal((await withPort(adminHostname('localhost'), '/v1/tenants', value, admin)).status, 200);
    }
  });

  test('no access-log field holds a piece of a key: split over short path segments, lower-cased into a host label, a tenant or a key id', async () => {
    const keys = ['key_acme_prod_full', 'key_globex_dev_read', 'key_acme_prod_revoked'].map((id) =>
      secretOf(km.fixtures, id),
    );
    const port = km.server.httpsPort;
    const target = { server: { httpsPort: port }, ca: km.ca } as unknown as TestServer;
    const client = new PanelClient(km, panelHost('acme'));
    const user = fixtureUser(km.fixtures, 'acme', 'admin');
    assert.equal((await client.signIn(user.email, user.password)).status, 303);
    await client.get('/settings/api/keys');
    const linesBefore = km.accessLog.length;
    let sent = 0;
    for (const secret of keys) {
      const random = secret.slice(secret.indexOf('_', 4) + 1);
      const lower = random.toLowerCase();
      const halves = [random.slice(0, 16), random.slice(16)];
      const eighths = random.match(/.{4}/g) ?? [];
      const paths = [
        `/v1/${halves.join('/')}`,
        `/v1/customers/${halves.join('/')}`,
        `/${eighths.join('/')}`,
        `/v1/${lower.slice(0, 16)}/${lower.slice(16)}`,
      ];
      for (const path of paths) {
        await send(port, km.ca, { hostname: API_HOST, path, headers: { Authorization: `Bearer ${key}` } });
        sent += 1;
      }
      // The random part lower-cased into the API host's tenant label, whole or split by a hyphen.
      for (const label of [lower, `${lower.slice(0, 16)}-${lower.slice(16)}`]) {
        const hostname = `${label}.api.localhost`;
        await sendRequest(target, {
          host: `${hostname}:${port}`,
          servername: hostname,
          verifyHostname: hostname,
        });
        sent += 1;
      }
      // As a tenant label of a panel host (its certificate is the API's: checked against an API name).
      const panelName = `${lower}.localhost`;
      await sendRequest(target, {
        host: `${panelName}:${port}`,
        servername: panelName,
        path: '/sign-in',
        verifyHostname: API_HOST,
      });
      sent += 1;
      // As a tenant and as a key id in admin paths, and as a key id in a panel action.
      for (const path of [`/v1/tenants/${lower}/keys`, `/v1/tenants/acme/keys/key_${lower}`]) {
        await km.admin('GET', path.slice(3));
        sent += 1;
      }
      assert.equal((await client.post(`/settings/api/keys/key_${lower}/revoke`, {})).status, 404);
      sent += 1;
    }
    const log = km.accessLog.slice(linesBefore);
    assert.equal(log.length, sent, 'one line per request');
    const text = log.join('').toLowerCase();
    for (const secret of keys) {
      const random = secret.slice(secret.indexOf('_', 4) + 1).toLowerCase();
      for (let start = 0; start + 8 <= random.length; start++) {
        const piece = random.slice(start, start + 8);
        assert.ok(!text.includes(piece), `8 characters of a key (from ${start}) reached the access log`);
      }
    }
  });
});
