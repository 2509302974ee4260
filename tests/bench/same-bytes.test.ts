// The bench's bare baseline must send the reference's exact bytes per scenario, or the ratio it
// gives flatters one side: mirrorOnBare sets it up from the reference's answer and checks it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../reference-server/store/fixtures.ts';
import { apiHostname } from '../../reference-server/http/hosts.ts';

const certDir = mkdtempSync(join(tmpdir(), 'same-bytes-'));
const host = apiHostname('acme', 'production', DOMAIN);
const scenarios = keepAliveScenarios(loadFixtures(DEFAULT_FIXTURES_FILE));
let reference: ServerChild;
let bare: ServerChild;
let ca = '';

before(async () => {
  reference = await ServerChild.start({ kind: 'reference', certDir }, 'reference server');
  bare = await ServerChild.start({ kind: 'bare', certDir, tenantIds: [] }, 'bare server');
  ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
});

after(async () => {
  await Promise.all([reference.stop(), bare.stop()]);
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

test('an answer missing a field, with another reason phrase or another body, is told apart', async () => {
  const scenario = scenarios[1] ?? { name: 'no Authorization header' };
  const answer = await verifiedAnswer(reference.port, host, ca, scenario.authorization);
  const fewer: Answer = { ...answer, headers: answer.headers.filter(([name]) => name !== 'Cache-Control') };
  assert.match(byteDifferences(answer, fewer).join(), /header fields/);
  assert.match(byteDifferences(answer, { ...answer, statusMessage: 'Nope' }).join(), /status line/);
  assert.match(byteDifferences(answer, { ...answer, body: '{}' }).join(), /another body/);
});
