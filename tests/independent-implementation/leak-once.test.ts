// A leak seen once is a failure: behind a front that answers ONE keyless request with another
// tenant's list (leaking-front.ts), a run fails whatever a retry later sees — with `--retries 1`
// the rule that saw the leak is re-run and passes, and the verdict is still NOT CONFORMANT with
// the leaking try's evidence. The same leak landing on the keyless request the suite sends to
// learn the tenants' data fails AUTH-MISSING-HEADER, though no rule's test sent it (the run's checker).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runConformance } from '../support/conformance-run.ts';
import { startLeakingFront } from './leaking-front.ts';
import { writeIndependentTarget } from './independent-target.ts';
import { independentServerPerSuite } from '../support/independent-deployment.ts';
import { assertNotConformant, probe } from './run-support.ts';

const ACME = 'acme.api.localhost';
const KEYLESS = [
  ['Accept', 'application/json'],
  ['Content-Type', 'application/json'],
] as const;

describe('a front that leaks another tenant’s data to one keyless request', () => {
  const independentServer = independentServerPerSuite();

  test('shown by direct requests: the first keyless request gets globex’s list, the next 401', async () => {
    const server = independentServer();
    const front = await startLeakingFront(server, 1);
    try {
      const first = await probe({ port: front.port, ca: front.caPem, host: ACME, headers: KEYLESS });
      const second = await probe({ port: front.port, ca: front.caPem, host: ACME, headers: KEYLESS });
      const globexList = await probe({
        port: server.port,
        ca: server.caPem,
        host: 'globex.api.localhost',
        headers: [['Authorization', `Bearer ${server.keys.globexLiveFull}`]],
      });
      assert.equal(first.status, 200);
      assert.equal(first.body, globexList.body, "the first keyless request got globex's list");
      assert.equal(second.status, 401);
    } finally {
      await front.close();
    }
  });

  test('--retries 1, the leak on a rule’s request: NOT CONFORMANT, the leaking try’s evidence reported', async () => {
    const server = independentServer();
    const front = await startLeakingFront(server, 2);
    try {
      const target = await writeIndependentTarget(server, { ...front, name: 'leaking front' });
      const run = await runConformance(['--target', target.file, '--retries', '1'], target.env);
      assertNotConformant(run, { 'AUTH-MISSING-HEADER': 'fail' });
      const rule = run.report?.rules.find((candidate) => candidate.id === 'AUTH-MISSING-HEADER');
      assert.match(rule?.message ?? '', /the answer holds data of the other tenant/);
      assert.match(rule?.message ?? '', /a leak seen once is a failure/);
      assert.equal(rule?.evidence?.[0]?.status, 200);
    } finally {
      await front.close();
    }
  });

  test('the leak on a keyless request of a rule that does not judge data (ERROR-BODY-SHAPE skips a success): that rule fails', async () => {
    const server = independentServer();
    const front = await startLeakingFront(server, 2);
    try {
      const target = await writeIndependentTarget(server, { ...front, name: 'leaking front' });
      const run = await runConformance(['--target', target.file, '--grep', '@ERROR-BODY-SHAPE'], target.env);
      assert.equal(run.report?.verdict, 'NOT CONFORMANT', run.stdout);
      const rule = run.report?.rules.find((candidate) => candidate.id === 'ERROR-BODY-SHAPE');
      assert.equal(rule?.verdict, 'fail');
      assert.match(
        rule?.message ?? '',
        /keyless request that gets data is a failure wherever the suite sees it/,
      );
      assert.equal(rule?.evidence?.[0]?.status, 200);
    } finally {
      await front.close();
    }
  });

  test('the leak on the keyless request that learns the tenants’ data: NOT CONFORMANT by AUTH-MISSING-HEADER', async () => {
    const server = independentServer();
    const front = await startLeakingFront(server, 1);
    try {
      const target = await writeIndependentTarget(server, { ...front, name: 'leaking front' });
      const run = await runConformance(['--target', target.file], target.env);
      assertNotConformant(run, { 'AUTH-MISSING-HEADER': 'fail' });
      const rule = run.report?.rules.find((candidate) => candidate.id === 'AUTH-MISSING-HEADER');
      assert.match(rule?.message ?? '', /sent by learning the tenants' data \(before the checks\)/);
      assert.match(rule?.message ?? '', /answered with data of the other tenant/);
      assert.equal(rule?.evidence?.[0]?.status, 200);
    } finally {
      await front.close();
    }
  });
});
