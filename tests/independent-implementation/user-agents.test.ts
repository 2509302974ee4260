// The suite does not announce itself. A cloaking front checks keys only for requests whose
// User-Agent is the one the suite used to send (`tenant-auth-conformance`) and serves every other
// client without a key the tenant's customers, as `curl` gets them. The suite's requests carry the
// User-Agents of common clients in turn (curl, a browser, python-requests, Go), recorded in the
// HAR as sent: NOT CONFORMANT by AUTH-MISSING-HEADER. With `--user-agent tenant-auth-conformance`
// every request says that instead (the option's variable, CONFORMANCE_USER_AGENT, as the batch
// gives a run its settings) — and the same front is CONFORMANT: what a black-box run cannot prove
// (docs/certification.md).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMON_USER_AGENTS } from '../../conformance/requests/user-agents.ts';
import { ENV } from '../../conformance/env.ts';
import type { ConformanceRun } from '../support/conformance-run.ts';
import { batchOfDeployments } from '../support/batched-runs.ts';
import { startIndependentDeployment } from '../support/independent-deployment.ts';
import { probe } from './run-support.ts';
import { CLOAKED_FOR, type IndependentServer } from './server.ts';

interface HarFile {
  log: { entries: { request: { headers: { name: string; value: string }[] } }[] };
}

/**
 * Two deployments of the cloaking implementation, one per run, checked in one batch
 * (tests/support/batched-runs.ts): what each received is its own run's alone.
 */
const batch = batchOfDeployments();
const startCloaked = () => startIndependentDeployment({ servesKeylessToOtherAgents: true });
const variedDeployment = batch.add('varied-user-agents', startCloaked);
const announcedDeployment = batch.add('announced-user-agent', startCloaked, {
  settings: { [ENV.userAgent]: CLOAKED_FOR },
});

let server: IndependentServer;
let varied: ConformanceRun;
let announced: ConformanceRun;
let receivedVaried: string[];

function userAgentsReceived(from: IndependentServer): string[] {
  return from.received.flatMap(({ rawHeaders }) =>
    rawHeaders.flatMap((name, index) =>
      index % 2 === 0 && name.toLowerCase() === 'user-agent' ? [rawHeaders[index + 1] ?? ''] : [],
    ),
  );
}

function userAgentsInHar(run: ConformanceRun): string[] {
  const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as HarFile;
  return har.log.entries.flatMap((entry) =>
    entry.request.headers.filter(({ name }) => name.toLowerCase() === 'user-agent').map(({ value }) => value),
  );
}

// In a describe: the file's top-level hooks start as they are registered, the batch's still running;
// a describe's hook runs once they have ended.
describe('a cloaking front that checks keys only for the suite’s old User-Agent', () => {
  before(() => {
    ({ server, run: varied } = variedDeployment());
    // Before this file's probes reach the server: what the run alone sent.
    receivedVaried = userAgentsReceived(server);
    announced = announcedDeployment().run;
  });

  test('the shape: no key and the old suite User-Agent → 401; no key as curl → 200 with data', async () => {
    const asked = (agent: string) =>
      probe({
        port: server.port,
        ca: server.caPem,
        host: 'acme.api.localhost',
        path: '/v1/customers',
        headers: [['User-Agent', agent]],
      });
    assert.equal((await asked(CLOAKED_FOR)).status, 401);
    assert.equal((await asked('curl/8.5.0')).status, 200);
  });

  test("common clients' User-Agents, varied and recorded: NOT CONFORMANT by AUTH-MISSING-HEADER", () => {
    assert.equal(varied.report?.verdict, 'NOT CONFORMANT', varied.stdout);
    const rule = varied.report?.rules.find((candidate) => candidate.id === 'AUTH-MISSING-HEADER');
    assert.equal(rule?.verdict, 'fail', rule?.message);
    const recorded = userAgentsInHar(varied);
    assert.ok(recorded.length > 50, `${recorded.length} User-Agents recorded`);
    assert.deepEqual([...new Set(recorded)].sort(), [...COMMON_USER_AGENTS].sort());
    assert.ok(!receivedVaried.includes(CLOAKED_FOR), 'no request announced the suite');
    // What was received is what the HAR says was sent, agent for agent.
    for (const agent of COMMON_USER_AGENTS)
      assert.ok(receivedVaried.includes(agent), `${agent} was received`);
  });

  test('--user-agent sets every request’s User-Agent; announced, the cloaking front passes: the limit a black-box run has', () => {
    assert.deepEqual([...new Set(userAgentsInHar(announced))], [CLOAKED_FOR]);
    assert.equal(announced.report?.verdict, 'CONFORMANT', announced.stdout);
  });
});
