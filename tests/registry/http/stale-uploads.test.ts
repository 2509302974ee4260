// A registry killed with -9 mid-publish leaves its upload directory in the temporary directory; the
// next registry to start removes it, and never one of a registry that still runs — on the embedded
// database and on a PostgreSQL server.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BACKENDS, openBackend, stopBackends } from '../support/backends.ts';
import { startTestRegistry } from '../support/registry.ts';
import { scratchDirectory } from '../../support/scratch.ts';

/** The pid of a process that has ended. */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

after(() => stopBackends());

for (const backend of BACKENDS) {
  describe(`upload directories left by a SIGKILL, ${backend} database`, () => {
    test("are removed at start; a running registry's are kept", async () => {
      // The PostgreSQL server starts first, in the usual temporary directory its user can write.
      await (await openBackend(backend)).close();
      const temporary = scratchDirectory('registry-tmp-');
      const before = process.env.TMPDIR;
      process.env.TMPDIR = temporary;
      try {
        const stale = join(temporary, `registry-upload-${endedPid()}-aB3dE9`);
        const live = join(temporary, `registry-upload-${process.ppid}-zZ9yY8`);
        const other = join(temporary, 'registry-upload-notapid');
        for (const directory of [stale, live, other]) {
          mkdirSync(directory);
          writeFileSync(join(directory, 'SHA256SUMS'), 'left behind');
        }
        const registry = await startTestRegistry(backend, {});
        try {
          assert.equal(existsSync(stale), false);
          assert.equal(existsSync(live), true);
          assert.equal(existsSync(other), true);
          assert.ok(
            registry.logs.some((line) => line.includes('stopped mid-publish')),
            registry.logs.join('\n'),
          );
        } finally {
          await registry.close();
        }
      } finally {
        if (before === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = before;
      }
    });
  });
}
