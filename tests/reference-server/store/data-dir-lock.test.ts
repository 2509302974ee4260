// One server per data directory: a second one refuses to start, naming the directory and the first
// one's pid (exit 1); the lock of a server killed with -9 is taken over by the next start, which
// also removes the temporary files interrupted writes left; and every key acknowledged before the
// kill is still there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CreatedKey } from '../../../schemas/generated/api-key-management.ts';
import { DataDirError } from '../../../reference-server/store/data-dir.ts';
import { LOCK_FILE } from '../../../reference-server/store/data-dir-lock.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../../reference-server/store/fixtures.ts';
import { adminHostname, apiHostname } from '../../../reference-server/http/hosts.ts';
import { startReferenceServer } from '../../../reference-server/server.ts';
import { send } from '../../support/key-management-client.ts';
import { cleanEnv, runCli, startCli, STACK_TRACE, type CliProcess } from '../../support/reference-cli.ts';
import { scratchDirectory } from '../../support/scratch.ts';

/** The pid of a process that has ended (so that no process runs with it, barring reuse). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

describe('data directory lock', () => {
  const workDir = scratchDirectory('data-dir-lock-');
  const certDir = join(workDir, 'certs');
  const running: CliProcess[] = [];
  before(() => mkdirSync(certDir));
  after(() => {
    for (const cli of running) cli.kill();
    rmSync(workDir, { recursive: true, force: true });
  });

  const cliArgs = (dataDir: string): string[] => [
    '--port',
    '0',
    '--http-port',
    'off',
    '--cert-dir',
    certDir,
    '--data-dir',
    dataDir,
    '--access-log',
    'off',
  ];

  async function startedCli(dataDir: string): Promise<{ cli: CliProcess; port: number; ca: string }> {
    const cli = startCli(cliArgs(dataDir), cleanEnv());
    running.push(cli);
    const [, port = ''] = await cli.waitForStdout(/Listening: https port (\d+)/);
    return { cli, port: Number(port), ca: readFileSync(join(certDir, 'ca.crt'), 'utf8') };
  }

  test('a second server on the same directory exits 3 (could not start) naming the directory and the pid holding it', async () => {
    const dataDir = join(workDir, 'shared');
    const first = await startedCli(dataDir);
    const second = await runCli(cliArgs(dataDir), cleanEnv());
    assert.equal(second.code, 3, second.stderr);
    assert.ok(second.stderr.includes(dataDir), `names the directory: ${second.stderr}`);
    assert.ok(second.stderr.includes(`pid ${first.cli.child.pid}`), `names the pid: ${second.stderr}`);
    assert.doesNotMatch(second.stderr, STACK_TRACE);
    assert.doesNotMatch(second.stdout, /Reference server ready/);
    // The first is unharmed, and still holds the lock.
    const reply = await send(first.port, first.ca, {
      hostname: apiHostname('acme', 'production', 'localhost'),
      path: '/v1/customers',
    });
    assert.equal(reply.status, 401);
    assert.equal(readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim(), String(first.cli.child.pid));
    first.cli.child.kill('SIGTERM');
    assert.equal((await first.cli.exited).code, 0);
    assert.ok(!existsSync(join(dataDir, LOCK_FILE)), 'the lock is removed at a clean stop');
  });

  test('after kill -9: the next start takes the stale lock over, removes stale .tmp files, and keeps every acknowledged key', async () => {
    const dataDir = join(workDir, 'killed');
    const { cli, port, ca } = await startedCli(dataDir);
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const created: CreatedKey[] = [];
    const creations = Array.from({ length: 20 }, (_, index) =>
      send(port, ca, {
        hostname: adminHostname('localhost'),
        method: 'POST',
        path: '/v1/tenants/acme/keys',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          name: `before kill ${index}`,
          environment: 'production',
          access: 'read_only',
        }),
      }).then(
        (reply) => {
          // Killed as soon as the first key is acknowledged, while the others are being written.
          if (reply.status === 201) {
            created.push(JSON.parse(reply.body) as CreatedKey);
            cli.child.kill('SIGKILL');
          }
        },
        () => {},
      ),
    );
    await Promise.all(creations);
    await cli.exited;
    assert.ok(created.length >= 1, 'no creation was acknowledged before the kill');
    const stalePid = deadPid();
    const staleTemporary = `keys.json.${stalePid}.0123abcd.tmp`;
    writeFileSync(join(dataDir, staleTemporary), '{"a whole copy":"of the store"}');

    const again = await startedCli(dataDir);
    assert.equal(readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim(), String(again.cli.child.pid));
    assert.ok(!readdirSync(dataDir).includes(staleTemporary), 'the stale temporary file is still there');
    for (const key of created) {
      const reply = await send(again.port, again.ca, {
        hostname: apiHostname('acme', 'production', 'localhost'),
        path: '/v1/customers',
        headers: { Authorization: `Bearer ${key.secret}` },
      });
      assert.equal(reply.status, 200, `acknowledged key ${key.key.id} lost`);
    }
    again.cli.child.kill('SIGTERM');
    await again.cli.exited;
  });

  test('in one process: a second server on a locked directory is refused; a lock of a dead pid is taken over', async () => {
    const dataDir = join(workDir, 'in-process');
    const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
    const options = {
      host: '127.0.0.1',
      httpsPort: 0,
      httpPort: null,
      domain: 'localhost',
      fixtures,
      certDir,
      dataDir,
    };
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, LOCK_FILE), `${deadPid()}\n`);
    const first = await startReferenceServer(options);
    try {
      await assert.rejects(
        () => startReferenceServer(options),
        (error: unknown) =>
          error instanceof DataDirError &&
          error.message.includes(dataDir) &&
          error.message.includes(`pid ${process.pid}`),
      );
    } finally {
      await first.close();
    }
    // Released at close: the directory can be used again.
    const next = await startReferenceServer(options);
    await next.close();
  });
});
