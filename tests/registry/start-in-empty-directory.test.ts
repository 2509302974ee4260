// The first commands of docs/registry.md's "Start a registry", as a new user runs them: in an empty
// directory, `keygen`, then `registry publisher … > acme.token` (which makes the data directory, as
// `serve` would), then `registry serve` — on the embedded database and on a PostgreSQL server. A
// path the system refuses is named as the one that failed, never blamed on TMPDIR.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, MAIN_PATH, runMain, startCli, STACK_TRACE } from '../support/reference-cli.ts';
import { BACKENDS, openBackend, stopBackends, type OpenedBackend } from './support/backends.ts';
import { scratchDirectory } from '../support/scratch.ts';

const opened: OpenedBackend[] = [];
after(async () => {
  for (const backend of opened) await backend.close();
  await stopBackends();
});

for (const backend of BACKENDS) {
  describe(`Start a registry in an empty directory, ${backend} database`, () => {
    test('registry publisher makes .registry-data and prints a token; serve starts on it', async () => {
      const cwd = scratchDirectory('registry-empty-');
      const keygen = await runMain(['keygen', '--out', 'acme'], cleanEnv(), { cwd });
      assert.equal(keygen.code, 0, keygen.stderr);
      const publisher = await runMain(
        ['registry', 'publisher', '--name', 'acme', '--public-key', 'acme.pub'],
        cleanEnv(),
        { cwd },
      );
      assert.equal(publisher.code, 0, publisher.stderr);
      assert.match(publisher.stdout.trim(), /^tacr_[A-Za-z0-9_-]{43}$/);
      assert.doesNotMatch(publisher.stderr, /TMPDIR/);
      const data = join(cwd, '.registry-data');
      assert.equal(statSync(data).mode & 0o777, 0o700);
      assert.ok(existsSync(join(data, 'publishers.json')));
      let where: string[] = [];
      if (backend === 'server') {
        const database = await openBackend('server', false);
        opened.push(database);
        where = ['--database-url', database.where.databaseUrl ?? ''];
      }
      const serve = startCli(['registry', 'serve', ...where, '--port', '0'], cleanEnv(), {
        script: MAIN_PATH,
        cwd,
      });
      try {
        await serve.waitForStdout(/Registry at https:\/\/localhost:\d+/);
        assert.match(serve.stdout(), /publishers: 1 \(/);
      } finally {
        serve.kill();
        await serve.exited;
      }
    });
  });
}

test('a data directory that cannot be made is named as the path that failed, exit 3, no TMPDIR guess', async () => {
  const cwd = scratchDirectory('registry-empty-');
  const keygen = await runMain(['keygen', '--out', 'acme'], cleanEnv(), { cwd });
  assert.equal(keygen.code, 0, keygen.stderr);
  // A file where the data directory's parent should be: no directory can be made under it.
  writeFileSync(join(cwd, 'not-a-directory'), 'a file');
  const data = join(cwd, 'not-a-directory', 'data');
  const publisher = await runMain(
    ['registry', 'publisher', '--name', 'acme', '--public-key', 'acme.pub', '--data', data],
    cleanEnv(),
    { cwd },
  );
  assert.equal(publisher.code, 3, publisher.stderr);
  assert.equal(publisher.stdout, '');
  assert.match(publisher.stderr, /ENOTDIR/);
  assert.ok(publisher.stderr.includes(join(cwd, 'not-a-directory')), publisher.stderr);
  assert.doesNotMatch(publisher.stderr, /TMPDIR|temporary directory/);
  assert.doesNotMatch(publisher.stderr, STACK_TRACE);
  mkdirSync(join(cwd, 'fine'));
  const fine = await runMain(
    [
      'registry',
      'publisher',
      '--name',
      'acme',
      '--public-key',
      'acme.pub',
      '--data',
      join(cwd, 'fine', 'new'),
    ],
    cleanEnv(),
    { cwd },
  );
  assert.equal(fine.code, 0, fine.stderr);
  assert.match(readFileSync(join(cwd, 'fine', 'new', 'publishers.json'), 'utf8'), /"name": "acme"/);
});
