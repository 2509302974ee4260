// The directories a test process works in, under the system's temporary directory. Removed when
// the process ends with every test passed; kept when one failed, as what that test left is the
// evidence to look at, and kept whatever happened with KEEP_WORK=1. Without this, every run of the
// tests left its reports, keys and servers' data behind (gigabytes in a developer's /tmp after a
// few days). For node:test files: a Playwright worker ends with 0 whatever its tests did, so a
// spec uses Playwright's own testInfo.outputPath() instead.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

process.once('exit', (code) => {
  if (code !== 0 || process.env.KEEP_WORK) return;
  for (const directory of made) {
    try {
      rmSync(directory, { recursive: true, force: true });
    } catch {
      // Tidying up is no part of a test's outcome: a directory that will not go stays.
    }
  }
});

/** A new directory named `prefix` and six random characters, removed as the file above says. */
export function scratchDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  made.push(directory);
  return directory;
}
