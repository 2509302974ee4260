// The bench's bare baselines must send the reference's exact bytes per scenario, or the ratio they
// give flatters one side: mirrorOnBare sets each up from the reference's answer and checks it,
// over HTTP/1.1 (node:https) and over HTTP/2 (node:http2).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ServerChild } from '../../bench/children.ts';
import {
  byteDifferences,
  DOMAIN,
  keepAliveScenarios,
  mirrorOnBare,
  verifiedAnswer,
  type Answer,
} from '../../bench/keep-alive.ts';
import { verifiedHttp2Answer } from '../../bench/http2-keep-alive.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../reference-server/store/fixtures.ts';
import { apiHostname } from '../../reference-server/http/hosts.ts';
import { scratchDirectory } from '../support/scratch.ts';

const certDir = scratchDirectory('same-bytes-');
const host = apiHostname('acme', 'production', DOMAIN);
const scenarios = keepAliveScenarios(loadFixtures(DEFAULT_FIXTURES_FILE));
let reference: ServerChild;
let bare: ServerChild;
let bareHttp2: ServerChild;
let ca = '';

before(async () => {
  reference = await ServerChild.start({ kind: 'reference', certDir }, 'reference server');
  bare = await ServerChild.start({ kind: 'bare', certDir, tenantIds: [] }, 'bare server');
  bareHttp2 = await ServerChild.start(
    { kind: 'bare', certDir, tenantIds: [], http2: true },
    'bare HTTP/2 server',
  );
  ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
});

after(async () => {
  await Promise.all([reference.stop(), bare.stop(), bareHttp2.stop()]);
  rmSync(certDir, { recursive: true, force: true });
});

test('bare sends the reference bytes in every keep-alive scenario, security header fields included', async () => {
  for (const scenario of scenarios) {
    const answer = await verifiedAnswer(reference.port, host, ca, scenario.authorization);
    await mirrorOnBare(bare, answer, scenario, host, ca);
    const names = answer.headers.map(([name]) => name.toLowerCase());
    for (const name of ['cache-control', 'x-content-type-options', 'strict-transport-security'])
      assert.ok(names.includes(name), `${scenario.name}: the reference sends ${name}`);
    const fromBare = await verifiedAnswer(bare.port, host, ca, scenario.authorization);
    assert.deepEqual(byteDifferences(answer, fromBare), [], scenario.name);
  }
});

test('over HTTP/2 too: bare node:http2 sends the reference bytes in every scenario', async () => {
  for (const scenario of scenarios) {
    const answer = await verifiedHttp2Answer(reference.port, host, ca, scenario.authorization);
    assert.equal(answer.statusMessage, '', 'HTTP/2 has no reason phrase');
    const names = answer.headers.map(([name]) => name);
    for (const name of [
      'cache-control',
      'x-content-type-options',
      'strict-transport-security',
      'content-length',
    ])
      assert.ok(names.includes(name), `${scenario.name}: the reference sends ${name} over HTTP/2`);
    await mirrorOnBare(bareHttp2, answer, scenario, host, ca, verifiedHttp2Answer);
    const fromBare = await verifiedHttp2Answer(bareHttp2.port, host, ca, scenario.authorization);
    assert.deepEqual(byteDifferences(answer, fromBare), [], scenario.name);
    // The same answer as over HTTP/1.1 but for the spelling of the names and Node's own fields.
    const overHttp1 = await verifiedAnswer(reference.port, host, ca, scenario.authorization);
    assert.equal(answer.body, overHttp1.body);
    assert.equal(answer.status, overHttp1.status);
  }
});

test('an answer missing a field, with another reason phrase or another body, is told apart', async () => {
  const scenario = scenarios[1] ?? { name: 'no Authorization header' };
  const answer = await verifiedAnswer(reference.port, host, ca, scenario.authorization);
  const fewer: Answer = { ...answer, headers: answer.headers.filter(([name]) => name !== 'Cache-Control') };
  assert.match(byteDifferences(answer, fewer).join(), /header fields/);
  assert.match(byteDifferences(answer, { ...answer, statusMessage: 'Nope' }).join(), /status line/);
  assert.match(byteDifferences(answer, { ...answer, body: '{}' }).join(), /another body/);
});
