// HTTP/2 as it is deployed: a correct implementation on a port that offers h2 alone (Node's
// `http2.createSecureServer` defaults, as gRPC-style gateways have it), and one whose HTTP/2
// front refuses one stream in five with REFUSED_STREAM (a front at its concurrent-stream limit).
// Each must be CONFORMANT under both profiles: the first over HTTP/2 with HTTP/1.1 reported as not
// offered, the second (HTTP/1.1 allowed too, both checked) with the refused streams sent again and
// counted in the traffic line. The two are checked in one batch; a run told `--protocols h1`
// against the first is a run of its own (its preflight stops it: the `run` command's to say).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tlsConnect } from 'node:tls';
import { runConformance } from '../support/conformance-run.ts';
import { batchOfDeployments } from '../support/batched-runs.ts';
import { startIndependentDeployment } from '../support/independent-deployment.ts';
import { assertConformantOverBothProtocols, exchangeVersions } from '../support/protocol-verdicts.ts';
import { assertConformant, assertNoKeyInReports, probeH2 } from './run-support.ts';
import { testUnderBothProfiles } from '../support/both-profiles.ts';

const ACME = 'acme.api.localhost';

/** The protocol a handshake offering `offered` agrees, or 'no handshake'. Bounded by 10 s. */
function alpnAgreed(port: number, ca: string, offered: string[]): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port,
      ca,
      servername: ACME,
      ALPNProtocols: offered,
      timeout: 10_000,
    });
    const done = (result: string): void => {
      socket.destroy();
      resolve(result);
    };
    socket.once('secureConnect', () => done(socket.alpnProtocol || 'none'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(`no handshake (${error.code ?? ''})`));
    socket.once('timeout', () => done('timed out'));
  });
}

/** Both deployments, each over what it offers by ALPN, checked in one batch (tests/support/batched-runs.ts). */
const batch = batchOfDeployments();

describe('a correct implementation on an h2-only port (no HTTP/1.1 by ALPN)', () => {
  const deployment = batch.add('h2-only', () => startIndependentDeployment({ http2: true, http1: false }), {
    profile: 'strict',
    protocols: 'offered',
  });

  test('the port agrees to h2 and ends a handshake that offers http/1.1 alone', async () => {
    const { server } = deployment();
    assert.equal(await alpnAgreed(server.port, server.caPem, ['h2', 'http/1.1']), 'h2');
    assert.match(
      await alpnAgreed(server.port, server.caPem, ['http/1.1']),
      /no handshake \(ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL\)/,
    );
    const served = await probeH2({
      port: server.port,
      ca: server.caPem,
      host: ACME,
      headers: [['Authorization', `Bearer ${server.keys.acmeLiveFull}`]],
    });
    assert.equal(served.status, 200);
  });

  testUnderBothProfiles(
    (profile) =>
      `--profile ${profile}: CONFORMANT over HTTP/2, HTTP/1.1 reported as not offered by the target`,
    () => Promise.resolve(deployment().run),
    (run) => {
      assertConformant(run);
      assert.deepEqual(run.report?.protocols, [
        { name: 'HTTP/2', verdict: 'CONFORMANT' },
        { name: 'HTTP/1.1', offered: false },
      ]);
      assert.match(run.stdout, /HTTP\/1\.1 not offered by the target/);
      assert.deepEqual(
        run.report?.tls?.map((tls) => tls.alpn),
        run.report?.tls?.map(() => ({ offered: ['h2'], agreed: 'h2' })),
        'the preflight offered what the run needs',
      );
      const versions = exchangeVersions(run.reportDir);
      assert.ok((versions['HTTP/2'] ?? 0) >= 30, `the catalog went over HTTP/2: ${JSON.stringify(versions)}`);
      assertNoKeyInReports(run, deployment().target.env);
    },
  );

  test('--protocols h1 against it: SETUP ERROR that says no protocol is in common and what to pass', async () => {
    const { target } = deployment();
    const run = await runConformance(['--target', target.file, '--protocols', 'h1'], target.env);
    assert.equal(run.report?.verdict, 'SETUP ERROR');
    assert.equal(run.exitCode, 3);
    const problem = run.report?.setupProblems?.find((each) => each.field === 'baseUrl');
    assert.match(problem?.problem ?? '', /no application protocol in common: offered http\/1\.1/);
    assert.match(problem?.fix ?? '', /--protocols h2/);
  });
});

describe('an HTTP/2 front that refuses one stream in five with REFUSED_STREAM', () => {
  // HTTP/1.1 allowed beside HTTP/2, as at most such fronts: the run checks both (a run that left
  // one out would be partial, never CONFORMANT under strict); the refused streams are HTTP/2's.
  const deployment = batch.add(
    'refuses-streams',
    () => startIndependentDeployment({ http2: true, refuseStreamEvery: 5 }),
    { profile: 'strict', protocols: 'offered' },
  );

  testUnderBothProfiles(
    (profile) =>
      `--profile ${profile}: CONFORMANT over both protocols, the refused streams sent again and counted`,
    () => Promise.resolve(deployment().run),
    (run) => {
      assertConformant(run);
      assertConformantOverBothProtocols(run);
      const refused = run.report?.traffic?.signals?.['RST_STREAM REFUSED_STREAM'] ?? 0;
      assert.ok(refused > 0, `refused streams were met: ${JSON.stringify(run.report?.traffic)}`);
      assert.ok((run.report?.traffic?.retries ?? 0) >= refused, 'each refused stream was sent again');
      assert.match(run.stdout, /unanswered \(RST_STREAM REFUSED_STREAM \d+\)/);
      assertNoKeyInReports(run, deployment().target.env);
    },
  );
});
