// A real nginx with HTTP/2 before the independent implementation, reloaded (`nginx -s reload`)
// again and again while the suite runs: each reload sends GOAWAY to its HTTP/2 connections and
// closes idle keep-alive ones, as every deploy of such a front does. CONFORMANT under both
// profiles, every rule checked over HTTP/1.1 and HTTP/2; what a reload cut short was sent again
// and is counted in the traffic line, never judged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OVER_OFFERED_PROTOCOLS, runConformance } from '../support/conformance-run.ts';
import { assertConformantOverBothProtocols } from '../support/protocol-verdicts.ts';
import { writeIndependentTarget, type WrittenTarget } from './independent-target.ts';
import { startNginxFront, type NginxFront } from './nginx-front.ts';
import { assertConformant, assertNoKeyInReports, probeH2 } from './run-support.ts';
import { testUnderBothProfiles } from '../support/both-profiles.ts';
import { startIndependentServer, type IndependentServer } from './server.ts';

const RELOAD_EVERY_MS = 1_000;

describe('behind a real nginx with HTTP/2, reloaded during the run', () => {
  let server: IndependentServer;
  let front: NginxFront;
  let target: WrittenTarget;

  before(async () => {
    server = await startIndependentServer();
    front = await startNginxFront(server.port);
    target = await writeIndependentTarget({ ...server, port: front.port, caPem: front.caPem });
  });
  after(async () => {
    await front.close();
    await server.close();
  });

  test('nginx serves the implementation over HTTP/2, and a reload leaves it serving', async () => {
    const asAcme = () =>
      probeH2({
        port: front.port,
        ca: front.caPem,
        host: 'acme.api.localhost',
        headers: [['Authorization', `Bearer ${server.keys.acmeLiveFull}`]],
      });
    assert.equal((await asAcme()).status, 200);
    front.reload();
    assert.equal((await asAcme()).status, 200);
  });

  let reloads = 0;
  testUnderBothProfiles(
    (profile) => `--profile ${profile}: CONFORMANT over both protocols while nginx reloads`,
    async () => {
      reloads = 0;
      const reloading = setInterval(() => {
        front.reload();
        reloads += 1;
      }, RELOAD_EVERY_MS);
      try {
        // Over both protocols, on a busy machine: a generous bound, not a timing assertion.
        return await runConformance(
          ['--target', target.file, '--profile', 'strict'],
          { ...target.env, ...OVER_OFFERED_PROTOCOLS },
          600_000,
        );
      } finally {
        clearInterval(reloading);
      }
    },
    (run) => {
      assert.ok(reloads >= 3, `nginx was reloaded at least three times during the run (${reloads})`);
      assertConformant(run);
      assertConformantOverBothProtocols(run);
      // What a reload cut short was sent again, and the traffic line says so.
      const signals = Object.values(run.report?.traffic?.signals ?? {}).reduce(
        (sum, count) => sum + count,
        0,
      );
      if (signals > 0) assert.match(run.stdout, /Traffic: .*unanswered \(/);
      assertNoKeyInReports(run, target.env);
    },
  );
});
