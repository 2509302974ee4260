// scratch.ts: a test process's directories go when every test passed, and stay when one failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';

/** A process that makes a scratch directory, prints it, and ends with `exitCode`. */
function directoryLeftBy(exitCode: number, env: NodeJS.ProcessEnv = {}): string {
  const script = [
    `import { scratchDirectory } from ${JSON.stringify(new URL('./scratch.ts', import.meta.url).href)};`,
    `console.log(scratchDirectory('scratch-test-'));`,
    `process.exitCode = ${exitCode};`,
  ].join('\n');
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, KEEP_WORK: undefined, ...env },
  });
  const directory = child.stdout.trim();
  assert.ok(directory.includes('scratch-test-'), child.stderr);
  return directory;
}

test('removed when the process ends with success', () => {
  assert.equal(existsSync(directoryLeftBy(0)), false);
});

test('kept when the process ends with a failure (a failed test), for a look', () => {
  const directory = directoryLeftBy(1);
  assert.equal(existsSync(directory), true);
  rmSync(directory, { recursive: true });
});

test('kept whatever happened when KEEP_WORK is set, to look at a passing run', () => {
  const directory = directoryLeftBy(0, { KEEP_WORK: '1' });
  assert.equal(existsSync(directory), true);
  rmSync(directory, { recursive: true });
});
