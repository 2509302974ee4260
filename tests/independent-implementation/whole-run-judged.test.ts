// The whole run is judged: behind a balancer whose second pod looks keys up in every tenant
// (second-pod-front.ts), only the ADVISORY rule TENANT-CROSS-KEY-INDISTINGUISHABLE's probe gets
// acme's customers for globex's key; TENANT-CROSS-KEY-REJECTED's own probe lands on the correct
// pod. The run saw a cross-tenant read, so the MUST whose statement it breaks fails, naming the
// advisory rule as the sender — without the run's checker it passed and the run was CONFORMANT.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runConformance } from '../support/conformance-run.ts';
import { writeIndependentTarget } from './independent-target.ts';
import { independentServerPerSuite } from '../support/independent-deployment.ts';
import { probe } from './run-support.ts';
import { startSecondPodFront } from './second-pod-front.ts';

const ACME = 'acme.api.localhost';
// The MUST's probes go out twice (no ALPN, then ALPN http/1.1), each time without a validator and
// with If-Modified-Since (this deployment serves no ETag): the fifth is the advisory rule's.
const PROBE_OF_THE_ADVISORY_RULE = 5;

describe('a cross-tenant read seen only by an ADVISORY rule’s probe', () => {
  const independentServer = independentServerPerSuite();

  test('shown by direct requests: globex’s key on acme’s host is refused four times, then served acme’s list', async () => {
    const server = independentServer();
    const front = await startSecondPodFront(server, PROBE_OF_THE_ADVISORY_RULE);
    try {
      const crossKey = [['Authorization', `Bearer ${server.keys.globexLiveFull}`]] as const;
      const answers = [];
      for (let sent = 0; sent < PROBE_OF_THE_ADVISORY_RULE; sent += 1)
        answers.push(await probe({ port: front.port, ca: front.caPem, host: ACME, headers: crossKey }));
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [401, 401, 401, 401, 200],
      );
      assert.match(answers[4]?.body ?? '', /"customers"|\[/);
    } finally {
      await front.close();
    }
  });

  test('NOT CONFORMANT by TENANT-CROSS-KEY-REJECTED, the advisory rule named as the sender', async () => {
    const server = independentServer();
    const front = await startSecondPodFront(server, PROBE_OF_THE_ADVISORY_RULE);
    try {
      const target = await writeIndependentTarget(server, { ...front, name: 'second pod' });
      const run = await runConformance(['--target', target.file, '--grep', 'TENANT-CROSS-KEY-'], target.env);
      assert.equal(run.report?.verdict, 'NOT CONFORMANT', run.stdout);
      assert.equal(run.exitCode, 1, run.stderr);
      const verdict = (id: string) => run.report?.rules.find((rule) => rule.id === id);
      const must = verdict('TENANT-CROSS-KEY-REJECTED');
      assert.equal(must?.verdict, 'fail');
      assert.match(must?.message ?? '', /sent by TENANT-CROSS-KEY-INDISTINGUISHABLE/);
      assert.match(must?.message ?? '', /NO-DATA-WITHOUT-VALID-KEY/);
      assert.equal(must?.evidence?.[0]?.status, 200);
      assert.equal(must?.evidence?.[0]?.headers?.['x-served-by'], 'pod-b');
      assert.equal(verdict('TENANT-CROSS-KEY-INDISTINGUISHABLE')?.verdict, 'warning');
    } finally {
      await front.close();
    }
  });
});
