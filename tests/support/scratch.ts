// The directories a test process works in, under the system's temporary directory. Removed when
// the process ends with every test passed; kept when one failed, as what that test left is the
// evidence to look at. Without this, every run of the tests left its reports, keys and servers'
// data behind (gigabytes in a developer's /tmp after a few days).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

process.once('exit', (code) => {
  if (code !== 0) return;
  for (const directory of made) rmSync(directory, { recursive: true, force: true });
});

/** A new directory named `prefix` and six random characters, removed as the file above says. */
export function scratchDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  made.push(directory);
  return directory;
}
