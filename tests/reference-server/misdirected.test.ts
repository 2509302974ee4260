// Every 421 Misdirected Request is decided in one place (reference-server/addressing/address.ts),
// through the SNI step a caller may replace: a server whose `sniMatches` step is replaced (the
// mutation fault that serves any Host whatever the SNI) stops answering 421 on every kind of host,
// the tenant API's, a panel's and the admin API's, where the correct server answers 421 on each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FAULTS } from '../../mutation/catalog.ts';
import { DOMAIN, hostOf, send, startTestServer, type TestServer } from '../support/reference-client.ts';

const SNI_FAULT = 'sni-host-mismatch-served';

/** A request of each host kind on a connection opened (SNI) for acme's API host. */
const HOSTS = {
  api: hostOf('globex'),
  panel: `acme.${DOMAIN}`,
  admin: `admin.${DOMAIN}`,
};

describe('the SNI step decides the 421 of every host kind', () => {
  let correct: TestServer;
  let faulty: TestServer;
  before(async () => {
    correct = await startTestServer({ adminToken: 'a'.repeat(40) });
    faulty = await startTestServer({ adminToken: 'a'.repeat(40), fault: SNI_FAULT });
  });
  after(async () => {
    await correct?.close();
    await faulty?.close();
  });

  test('the fault replaces the SNI step alone', () => {
    const steps = FAULTS[SNI_FAULT].steps(correct.fixtures);
    assert.deepEqual(Object.keys(steps), ['sniMatches']);
  });

  for (const [kind, host] of Object.entries(HOSTS)) {
    test(`${kind} host: 421 from the correct server, not from one whose SNI step is replaced`, async () => {
      const options = { host, servername: hostOf('acme'), path: kind === 'api' ? '/v1/customers' : '/' };
      const right = await send(correct, options);
      assert.equal(right.status, 421, right.body);
      assert.equal((JSON.parse(right.body) as { error: { code: string } }).error.code, 'misdirected_request');
      const wrong = await send(faulty, options);
      assert.notEqual(wrong.status, 421, `${kind}: ${wrong.body}`);
    });
  }

  test('the same requests with matching SNI are not refused by either server', async () => {
    for (const host of Object.values(HOSTS)) {
      for (const server of [correct, faulty]) {
        const reply = await send(server, { host, path: '/' });
        assert.notEqual(reply.status, 421, `${host}: ${reply.body}`);
      }
    }
  });
});
