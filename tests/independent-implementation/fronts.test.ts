// Deployment shapes this project did not write for the reference, each correct, so each must be
// CONFORMANT under both profiles with every rule passed: a load balancer during a deploy (every
// fifth request 503 from a restarting pod, no Retry-After), TLS that picks a certificate by SNI
// with no default certificate, and chunked answers with a paged customer list. A probe shows each
// shape really is there, so that a pass is about that shape. The suite checks the three in one
// batch (tests/support/batched-runs.ts).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tlsConnect } from 'node:tls';
import { batchOfDeployments } from '../support/batched-runs.ts';
import { startGateFront } from './gate-front.ts';
import { restartingPodGate, UNAVAILABLE_EVERY } from './restarting-pod.ts';
import { assertConformant, assertNoKeyInReports, probe, type ProbeAnswer } from './run-support.ts';
import { testUnderBothProfiles } from '../support/both-profiles.ts';
import { startGatedDeployment, startIndependentDeployment } from '../support/independent-deployment.ts';
import type { IndependentServer } from './server.ts';
import { PAGE_SIZE } from './customer-pages.ts';
import type { ServerChoices } from './choices.ts';

/**
 * The names of the certificate a TLS handshake with `servername` gets (none: no SNI is sent), or
 * 'handshake failed'. Bounded by 10 s.
 */
function certificateNames(options: { port: number; ca: string; servername?: string }): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: options.port,
      ca: options.ca,
      ...(options.servername ? { servername: options.servername } : {}),
      timeout: 10_000,
    });
    const done = (result: string): void => {
      socket.destroy();
      resolve(result);
    };
    socket.once('secureConnect', () => done(socket.getPeerCertificate().subjectaltname ?? 'no names'));
    socket.once('error', () => done('handshake failed'));
    socket.once('timeout', () => done('timed out'));
  });
}
const ACME = 'acme.api.localhost';
const bearer = (key: string): [string, string] => ['Authorization', `Bearer ${key}`];

/** GET `path` (default /v1/customers) straight from the implementation, with acme's full key. */
function asAcme(server: IndependentServer, path?: string): Promise<ProbeAnswer> {
  return probe({
    port: server.port,
    ca: server.caPem,
    host: ACME,
    path,
    headers: [bearer(server.keys.acmeLiveFull)],
  });
}

/** Every deployment of this file, checked by the suite in one batch (tests/support/batched-runs.ts). */
const batch = batchOfDeployments();

/** The implementation behind a front whose pod restarts, the front's count starting at the run. */
async function startRestartingPodDeployment(): Promise<
  Awaited<ReturnType<typeof startGatedDeployment>> & {
    counters: ReturnType<typeof restartingPodGate>['counters'];
  }
> {
  const { gate, counters } = restartingPodGate();
  return { ...(await startGatedDeployment({ gate })), counters };
}

describe('behind a load balancer whose pod restarts: every fifth request 503, no Retry-After', () => {
  const deployed = batch.add('restarting-pod', startRestartingPodDeployment, { profile: 'strict' });
  // What the front counted during the run, read before any probe of this file reaches a front.
  let refused = 0;
  before(() => {
    refused = deployed().counters.counts().refused;
  });

  test(`the front answers every ${UNAVAILABLE_EVERY}th request 503 before authentication, without Retry-After`, async () => {
    const { server } = deployed();
    // A front of its own, so that its count starts here.
    const front = await startGateFront({
      upstreamPort: server.port,
      upstreamCa: server.caPem,
      gate: restartingPodGate().gate,
    });
    try {
      const answers = [];
      for (let index = 0; index < UNAVAILABLE_EVERY; index++)
        answers.push(
          await probe({
            port: front.port,
            ca: front.caPem,
            host: ACME,
            headers: [bearer(server.keys.acmeLiveFull)],
          }),
        );
      assert.deepEqual(
        answers.map(({ status }) => status),
        [200, 200, 200, 200, 503],
      );
      assert.equal(answers.at(-1)?.headers['retry-after'], undefined);
    } finally {
      await front.close();
    }
  });

  testUnderBothProfiles(
    (profile) =>
      `--profile ${profile}: CONFORMANT, every rule passed, no key in any report; no 503 is judged`,
    () => Promise.resolve(deployed().run),
    (run) => {
      assertConformant(run);
      assertNoKeyInReports(run, deployed().target.env);
      assert.ok(refused > 0, `the front answered some requests 503: the shape was met (${refused})`);
    },
  );
});

/**
 * The implementation with `choices` (deployment `id` of the batch): `shown` shows the choice by
 * direct requests, and its run must be CONFORMANT under each profile with every rule passed.
 */
function conformantVariant(
  id: string,
  name: string,
  choices: Partial<ServerChoices>,
  shown: { what: string; by: (server: IndependentServer) => Promise<void> },
): void {
  describe(name, () => {
    const deployed = batch.add(
      choices.certificate ?? choices.customerList ?? name,
      () => startIndependentDeployment(choices),
      { profile: 'strict' },
    );

    test(shown.what, () => shown.by(deployed().server));

    testUnderBothProfiles(
      (profile) => `--profile ${profile}: CONFORMANT, every rule passed, no key in any report`,
      () => Promise.resolve(deployed().run),
      (run) => {
        assertConformant(run);
        assertNoKeyInReports(run, deployed().target.env);
      },
    );
  });
}

conformantVariant(
  'per-host-by-sni',
  'TLS that picks a certificate per tenant host by SNI, with no default certificate',
  { certificate: 'per-host-by-sni' },
  {
    what: 'each tenant host gets a certificate of its own; no SNI, or an unknown name, gets no handshake',
    by: async (server) => {
      const names = (servername?: string) =>
        certificateNames({ port: server.port, ca: server.caPem, servername });
      assert.equal(await names(ACME), 'DNS:acme.api.localhost');
      assert.equal(await names('globex.sandbox.api.localhost'), 'DNS:globex.sandbox.api.localhost');
      assert.equal(await names(undefined), 'handshake failed');
      assert.equal(await names('initech.api.localhost'), 'handshake failed');
      const served = await asAcme(server);
      assert.equal(served.status, 200);
    },
  },
);

// TENANT-OWN-DATA-ONLY is not evaluated unless the other tenant's answer gave values to
// recognise: its pass shows that the suite learned each tenant's data, following the body's `next`
// link to the later pages (conformance/judging/pages.ts); TENANT-OTHER-PAGE-CURSOR-NO-DATA's pass,
// that globex's `next` on acme's host is refused (this list's cursor is bound to its tenant).
conformantVariant(
  'paged-chunked',
  `chunked answers and a paged customer list (${PAGE_SIZE} customer a page, has_more, a next link)`,
  { customerList: 'paged-chunked' },
  {
    what: 'GET /customers serves the first page only, chunked, and the next link serves the rest',
    by: async (server) => {
      const first = await asAcme(server);
      assert.equal(first.status, 200);
      assert.equal(first.headers['transfer-encoding'], 'chunked');
      assert.equal(first.headers['content-length'], undefined);
      const page = JSON.parse(first.body) as { customers: unknown[]; has_more: boolean; next: string };
      assert.equal(page.customers.length, PAGE_SIZE);
      assert.equal(page.has_more, true);
      const second = await asAcme(server, page.next);
      assert.equal(second.status, 200);
      assert.equal((JSON.parse(second.body) as { has_more: boolean }).has_more, false);
      // A cursor of acme's list reads nothing of globex's.
      const elsewhere = await probe({
        port: server.port,
        ca: server.caPem,
        host: 'globex.api.localhost',
        path: page.next,
        headers: [bearer(server.keys.globexLiveFull)],
      });
      assert.equal(elsewhere.code, 'invalid_cursor');
      const rejected = await probe({ port: server.port, ca: server.caPem, host: ACME });
      assert.equal(rejected.headers['transfer-encoding'], 'chunked', 'errors are chunked too');
    },
  },
);
