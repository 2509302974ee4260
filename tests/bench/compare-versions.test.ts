// `npm run bench:versions` refuses bad input with what to do, before it starts anything: no
// commit, a name that is not a commit, a setting that is not a positive number.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

const SCRIPT = join(import.meta.dirname, '..', '..', 'bench', 'compare-versions.ts');

function run(args: string[], env: Record<string, string> = {}): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr };
}

test('without a commit it prints the usage and exits 2', () => {
  const { status, stderr } = run([]);
  assert.equal(status, 2);
  assert.match(stderr, /give exactly one commit/);
  assert.match(stderr, /Usage: npm run bench:versions -- REF/);
});

test('a name that is not a commit is refused, exit 2', () => {
  const { status, stderr } = run(['no-such-commit-anywhere']);
  assert.equal(status, 2);
  assert.match(stderr, /"no-such-commit-anywhere" is not a commit of this repository/);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
});

test('a setting that is not a positive number is refused, exit 2', () => {
  const { status, stderr } = run(['HEAD'], { BENCH_ROUNDS: 'many' });
  assert.equal(status, 2);
  assert.match(stderr, /BENCH_ROUNDS must be a positive number, got "many"/);
});

test('an option where the commit goes is refused rather than passed on to git, exit 2', () => {
  const { status, stderr } = run(['--output=/tmp/x']);
  assert.equal(status, 2);
  assert.match(stderr, /"--output=\/tmp\/x" is an option, not a commit/);
});
