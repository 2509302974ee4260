// The access log never holds a key, wherever a request puts one (header, URL parameter, path,
// quoted, duplicated, percent-encoded, on either listener), and each line has the documented
// fields: time, tenant, environment, key id, method, path, status, error code, duration.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { errorCodesOf } from '../../../reference-server/http/errors.ts';
import {
  allSecrets,
  hostOf,
  secretOf,
  send,
  sendRaw,
  startTestServer,
  type SendOptions,
  type TestServer,
} from '../../support/reference-client.ts';

/** Keys sent in every way below; the others only in the most common ways. */
const THOROUGH_KEY_IDS = new Set(['key_acme_prod_full', 'key_globex_dev_read', 'key_acme_prod_revoked']);

const DOCUMENTED_FIELDS = new Set([
  'time',
  'tenant',
  'environment',
  'keyId',
  'method',
  'path',
  'status',
  'errorCode',
  'durationMs',
  'transport',
  'protocol',
]);

describe('reference server: the access log', () => {
  let target: TestServer;
  let sent = 0;
  before(async () => {
    target = await startTestServer();
    await sendEveryKindOfRequest();
  });
  after(async () => {
    await target.close();
  });

  /** Many requests, each carrying fixture keys somewhere a careless log would pick them up. */
  async function sendEveryKindOfRequest(): Promise<void> {
    const requests: SendOptions[] = [];
    const rawRequests: Array<{ text: string; plain?: boolean }> = [];
    for (const tenant of target.fixtures.tenants) {
      for (const key of tenant.keys) {
        const secret = key.secret;
        const environment = key.environment;
        // Every key in the common places; a few keys in every place (each request costs a handshake).
        const some = <T>(list: T[], common: number): T[] =>
          THOROUGH_KEY_IDS.has(key.id) ? list : list.slice(0, common);
        const encoded = [...secret].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
        const randomPart = secret.slice(secret.indexOf('_', 4) + 1);
        const headerVariants: Array<Array<[string, string]>> = [
          [['Authorization', `Bearer ${secret}`]],
          [['Authorization', `bearer ${secret}`]],
          [['Authorization', `Bearer "${secret}"`]],
          [['Authorization', `Bearer '${secret}'`]],
          [['Authorization', `Bearer\t${secret}`]],
          [['Authorization', secret]],
          [['Authorization', `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`]],
          [
            ['Authorization', `Bearer ${secret}`],
            ['Authorization', `Bearer ${secret}`],
          ],
          [
            ['X-Forwarded-Host', secret],
            ['X-Api-Key', secret],
            ['Cookie', `key=${secret}`],
          ],
        ];
        for (const headers of some(headerVariants, 2)) {
          requests.push({ tenant: tenant.id, environment, headers });
          requests.push({ tenant: 'globex', headers });
        }
        for (const name of some(['access_token', 'api_key', 'apikey', 'key', 'token'], 1)) {
          requests.push({ tenant: tenant.id, environment, path: `/v1/customers?${name}=${secret}` });
          requests.push({
            tenant: tenant.id,
            environment,
            path: `/v1/customers?${name}=${encoded}`,
            plain: true,
          });
        }
        for (const path of some(
          [
            `/v1/${secret}`,
            `/v1/customers/${secret}`,
            `/${secret}/v1/customers`,
            `/v1/customers;${secret}`,
            `/v1/customers,${secret}`,
            `/v1/"${secret}"`,
            `/v1/${encodeURIComponent(`"${secret}"`)}`,
            `/v1/${secret.replace('_', '%5F')}`,
            `/v1/${encoded}`,
            `/v1/${randomPart}`,
            `/v1/customers#${secret}`,
            `/v1/x=${secret}&y=1`,
          ],
          2,
        )) {
          requests.push({
            tenant: tenant.id,
            environment,
            path,
            headers: [['Authorization', `Bearer ${secret}`]],
          });
          requests.push({ tenant: tenant.id, environment, path, plain: true });
        }
        // Rejected before authentication: an SNI/Host mismatch and a host matching no pattern.
        requests.push({
          servername: hostOf('acme'),
          host: hostOf('globex'),
          headers: [['Authorization', `Bearer ${secret}`]],
        });
        requests.push({ host: 'localhost', verifyHostname: hostOf('acme'), path: `/v1/${secret}` });
        // Too long a URL with a key in it.
        requests.push({ path: `/v1/${secret}/${'a'.repeat(9000)}?key=${secret}` });
        rawRequests.push(
          { text: `GET /v1/${secret} HTTP/1.0\r\nAuthorization: Bearer ${secret}\r\n\r\n` },
          { text: `GET /v1/${secret} HTTP/1.1\r\nAuthorization: Bearer ${secret}\r\n\r\n`, plain: true },
        );
      }
    }
    // Keyless requests and successes, so that every kind of line is in the log.
    requests.push(
      { tenant: 'acme' },
      {
        tenant: 'acme',
        method: 'POST',
        headers: [['Authorization', `Bearer ${secretOf(target.fixtures, 'key_acme_prod_full')}`]],
      },
    );
    const exchanges: Array<() => Promise<unknown>> = [
      ...requests.map((options) => () => send(target, options)),
      ...rawRequests.map(
        ({ text, plain }) =>
          () =>
            sendRaw(target, text, { plain: plain ?? false }),
      ),
    ];
    // A few at a time: fast, and still a bounded number of open connections.
    const queue = exchanges.entries();
    const worker = async (): Promise<void> => {
      for (const [, exchange] of queue) {
        await exchange();
        sent += 1;
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  }

  test('one line per request', () => {
    assert.ok(sent > 200, `sent ${sent} requests`);
    assert.equal(target.accessLog.length, sent);
  });

  test('no line holds a key, in clear, percent-encoded or as its random part alone', () => {
    const secrets = allSecrets(target.fixtures);
    const needles = secrets.flatMap((secret) => [secret, secret.slice(secret.indexOf('_', 4) + 1)]);
    for (const line of target.accessLog) {
      const decoded = decodePercent(line);
      for (const needle of needles) {
        assert.ok(!line.includes(needle), `a key in the access log: ${redact(line, needles)}`);
        assert.ok(
          !decoded.includes(needle),
          `a percent-encoded key in the access log: ${redact(decoded, needles)}`,
        );
      }
    }
  });

  test('each line is one JSON object with the documented fields', () => {
    const knownCodes = new Set<string>(errorCodesOf('api'));
    const seen = { success: false, keyId: false, tenant: false, http: false, beforeHost: false };
    for (const line of target.accessLog) {
      assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'), 'one line');
      const entry = JSON.parse(line) as Record<string, unknown>;
      for (const field of Object.keys(entry))
        assert.ok(DOCUMENTED_FIELDS.has(field), `undocumented field ${field}`);

      assert.equal(typeof entry.time, 'string');
      assert.match(entry.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.match(entry.method as string, /^[A-Z]+$/);
      assert.equal(typeof entry.path, 'string');
      assert.ok(
        Number.isInteger(entry.status) && (entry.status as number) >= 200 && (entry.status as number) < 600,
      );
      assert.ok(typeof entry.durationMs === 'number' && entry.durationMs >= 0);
      assert.ok(entry.transport === 'https' || entry.transport === 'http');
      assert.ok(entry.protocol === 'h1' || entry.protocol === 'h2');

      const status = entry.status as number;
      if (status >= 400) assert.ok(knownCodes.has(entry.errorCode as string), `errorCode of ${line}`);
      else assert.equal(entry.errorCode, undefined);
      // Tenant and environment come together, from the host; a key id only once the key matched.
      assert.equal(entry.tenant === undefined, entry.environment === undefined, line);
      if (entry.tenant !== undefined) assert.match(entry.tenant as string, /^[a-z0-9-]+$/);
      if (entry.environment !== undefined)
        assert.ok(['production', 'sandbox'].includes(entry.environment as string));
      if (entry.keyId !== undefined) {
        assert.match(entry.keyId as string, /^key_[a-z0-9_]+$/);
        assert.ok([200, 403, 404, 405].includes(status), `a key id on a ${status}: ${line}`);
      }
      if (entry.transport === 'http') {
        assert.equal(entry.status, 403);
        assert.equal(entry.keyId, undefined, 'plain HTTP never reads the key');
      }

      seen.success ||= status === 200;
      seen.keyId ||= entry.keyId !== undefined;
      seen.tenant ||= entry.tenant !== undefined;
      seen.http ||= entry.transport === 'http';
      seen.beforeHost ||= status === 421;
    }
    assert.deepEqual(seen, { success: true, keyId: true, tenant: true, http: true, beforeHost: true });
  });

  test('a successful request names its tenant, environment and key id', () => {
    const entries = target.accessLog.map((line) => JSON.parse(line) as Record<string, unknown>);
    const success = entries.find((entry) => entry.status === 200 && entry.keyId === 'key_acme_prod_full');
    assert.ok(success, 'a logged success of key_acme_prod_full');
    assert.equal(success.tenant, 'acme');
    assert.equal(success.environment, 'production');
    assert.equal(success.path, '/v1/customers');
    assert.equal(success.method, 'GET');
    const sandbox = entries.find((entry) => entry.status === 200 && entry.keyId === 'key_acme_dev_full');
    assert.equal(sandbox?.environment, 'sandbox');
  });
});

/** Every `%XX` escape decoded (as Latin-1, so that no input makes it throw). */
function decodePercent(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The line with the needles masked, so that a failure message does not print a key either. */
function redact(line: string, needles: string[]): string {
  return needles.reduce((text, needle) => text.split(needle).join('[KEY]'), line);
}
