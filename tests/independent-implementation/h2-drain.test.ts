// A front that drains HTTP/2 connections (GOAWAY NO_ERROR, as a reload or a scale-in does): every
// third connection is drained at its first stream, which is not processed. A request the suite
// sends on a connection of its own is sent again on a new one (decision 0022); the series
// TENANT-H2-COALESCED-CONNECTION-ISOLATED sends on one connection starts over on a new connection
// when that connection is drained before the series was answered — never INCOMPLETE for it. The
// rule is run three times: its connections are every other one the front sees (the handshake that
// asks for h2 opens one before each), so one of the three is certain to be drained.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { independentDeploymentPerSuite, runAgainst } from '../support/independent-deployment.ts';

const RULE = 'TENANT-H2-COALESCED-CONNECTION-ISOLATED';

describe('an HTTP/2 front that drains every third connection at its first stream', () => {
  const deployment = independentDeploymentPerSuite({ http2: true, drainConnectionEvery: 3 });

  test(`${RULE} passes, its drained connections started over`, async () => {
    const run = await runAgainst(deployment(), [
      '--protocols',
      'h2',
      '--grep',
      RULE,
      '--repeat-each',
      '3',
      '--profile',
      'strict',
    ]);
    const rule = run.report?.rules.find((candidate) => candidate.id === RULE);
    assert.equal(rule?.verdict, 'pass', `${rule?.message ?? ''}\n${run.stdout}`);
    assert.doesNotMatch(run.stdout, /ERROR +MUST/, 'no rule ended as an ERROR');
  });
});
