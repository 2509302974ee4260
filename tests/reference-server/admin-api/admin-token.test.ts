// Where the admin token comes from: REFERENCE_ADMIN_TOKEN, else a file made once in the data
// directory (0600), else nowhere (the admin API is off). A guessable token is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  AdminTokenCheck,
  AdminTokenError,
  resolveAdminToken,
} from '../../../reference-server/admin-api/admin-token.ts';
import { parseCli } from '../../../reference-server/cli/cli-options.ts';
import { scratchDirectory } from '../../support/scratch.ts';

test('a data directory gets an admin token file once, readable by its owner only', () => {
  const dir = scratchDirectory('km-token-');
  try {
    const first = resolveAdminToken(undefined, dir);
    assert.deepEqual(first.source, { kind: 'file', path: join(dir, 'admin-token') });
    assert.ok(first.token && first.token.length >= 32);
    assert.equal(statSync(join(dir, 'admin-token')).mode & 0o777, 0o600);
    assert.equal(readFileSync(join(dir, 'admin-token'), 'utf8').trim(), first.token);
    assert.equal(resolveAdminToken(undefined, dir).token, first.token, 'a restart changed the token');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('REFERENCE_ADMIN_TOKEN wins; a short one is refused without being echoed; no source means off', () => {
  const strong = 'x'.repeat(40);
  assert.deepEqual(resolveAdminToken(strong, null), { token: strong, source: { kind: 'env' } });
  assert.throws(
    () => resolveAdminToken('short-token', null),
    (error: Error) => error instanceof AdminTokenError && !error.message.includes('short-token'),
  );
  assert.throws(() => resolveAdminToken(`${'y'.repeat(40)} with spaces`, null), AdminTokenError);
  assert.deepEqual(resolveAdminToken(undefined, null), { token: undefined, source: { kind: 'none' } });
});

test('the token check accepts exactly the token', () => {
  const check = new AdminTokenCheck('z'.repeat(40));
  assert.equal(check.matches('z'.repeat(40)), true);
  for (const wrong of ['', 'z'.repeat(39), 'z'.repeat(41), `${'z'.repeat(39)}Z`])
    assert.equal(check.matches(wrong), false);
});

test('--data-dir off keeps keys in memory; the admin token is read from the environment only', () => {
  const parsed = parseCli(['--data-dir', 'off'], { REFERENCE_ADMIN_TOKEN: 'from-env' });
  assert.ok(!parsed.help);
  assert.equal(parsed.options.dataDir, null);
  assert.equal(parsed.options.adminToken, 'from-env');
  const withDir = parseCli([], { REFERENCE_DATA_DIR: '/tmp/somewhere' });
  assert.ok(!withDir.help);
  assert.equal(withDir.options.dataDir, '/tmp/somewhere');
  assert.throws(() => parseCli(['--admin-token', 'x'], {}), /admin-token/);
});
