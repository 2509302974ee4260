// A front that closes idle keep-alive connections after 1 s, as load balancers do with short idle
// time-outs: a request sent on such a connection as it closes gets no byte of an answer, and the
// suite sends it again once on a new connection (decision 0022). CONFORMANT under both profiles.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tlsConnect } from 'node:tls';
import { gatedDeploymentPerSuite, runAgainst } from '../support/independent-deployment.ts';
import type { GateFront } from './gate-front.ts';
import { assertConformant, assertNoKeyInReports } from './run-support.ts';
import { testUnderBothProfiles } from '../support/both-profiles.ts';

const IDLE_TIMEOUT_MS = 1_000;

/** Milliseconds until the front closes a connection that sent one request and then nothing (bounded: 10 s). */
function closedAfterIdle(front: GateFront): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: front.port,
      ca: front.caPem,
      servername: 'acme.api.localhost',
    });
    let answeredAt = 0;
    const timer = setTimeout(() => socket.destroy(new Error('still open after 10 s')), 10_000);
    socket.on('data', () => (answeredAt ||= Date.now()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - answeredAt);
    });
    socket.on('error', reject);
    socket.write(`GET /v1/customers HTTP/1.1\r\nHost: acme.api.localhost:${front.port}\r\n\r\n`);
  });
}

describe(`behind a front that closes idle keep-alive connections after ${IDLE_TIMEOUT_MS / 1000} s`, () => {
  const deployment = gatedDeploymentPerSuite({
    gate: () => ({ pass: true }),
    idleTimeoutMs: IDLE_TIMEOUT_MS,
  });

  test('the front keeps a connection open after its answer, then closes it once idle', async () => {
    const idle = await closedAfterIdle(deployment().front);
    assert.ok(idle >= IDLE_TIMEOUT_MS / 2 && idle < 5_000, `closed ${idle} ms after the answer`);
  });

  testUnderBothProfiles(
    (profile) => `--profile ${profile}: CONFORMANT, every rule passed, no key in any report`,
    () => runAgainst(deployment(), ['--profile', 'strict']),
    (run) => {
      assertConformant(run);
      assertNoKeyInReports(run, deployment().target.env);
    },
  );
});
