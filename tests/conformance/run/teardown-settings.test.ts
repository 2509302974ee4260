// The teardown project revokes the minted keys under the run's settings, as its project hands them
// (the `runSettings` option), never under the defaults: a user's --max-retries (or
// --request-timeout) holds for the revocations as for every other request of the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { revokeMintedKeys } from '../../../conformance/run/minted-keys-revocation.ts';
import { writeProjectState } from '../../../conformance/run/project-state.ts';
import { resolveRunSettings } from '../../../conformance/settings.ts';
import { ENV } from '../../../conformance/env.ts';
import type { TargetDeclaration } from '../../../conformance/deployment/target.ts';
import { scratchDirectory } from '../../support/scratch.ts';

test('the teardown revokes under the settings its project hands it: --max-retries 0 sends each revocation once', async () => {
  // An admin API that is always unavailable, and says a retry may come at once.
  let revocations = 0;
  const admin = createServer((request, response) => {
    if (request.url?.includes('/revoke')) revocations += 1;
    response.writeHead(503, { 'Retry-After': '0', 'Content-Type': 'application/json' });
    response.end('{"error":{"code":"unavailable","message":"try again"}}');
  });
  await new Promise<void>((resolve) => admin.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = admin.address() as AddressInfo;
    const state = scratchDirectory('teardown-settings-');
    const runEnvironment = {
      [ENV.projectState]: state,
      [ENV.answerWatchFile]: join(state, 'consecutive-no-answers'),
      [ENV.trafficFile]: join(state, 'traffic.json'),
    };
    writeProjectState({ env: {}, minted: [{ tenant: 'acme', id: 'key_1' }] }, runEnvironment);
    process.env.TEARDOWN_TEST_ADMIN_TOKEN = 'teardown-test-admin-token';
    const declaredTarget = {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      hosts: {},
      keyMinting: { adminBaseUrl: `http://127.0.0.1:${port}/v1`, adminToken: 'TEARDOWN_TEST_ADMIN_TOKEN' },
    } as unknown as TargetDeclaration;
    const runSettings = resolveRunSettings({ maxRetries: '0' }, {});
    await assert.rejects(
      revokeMintedKeys({ declaredTarget, runEnvironment, runSettings }),
      /revoke: no response .*answered 503/,
    );
    assert.equal(revocations, 1, 'sent once, as --max-retries 0 asks, not 1 + the default 4 retries');
  } finally {
    admin.close();
  }
});
