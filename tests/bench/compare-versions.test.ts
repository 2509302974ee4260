// `npm run bench:versions` refuses bad input with what to do, before it starts anything: no
// commit, a name that is not a commit, a setting that is not a positive number.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, runCli } from '../support/reference-cli.ts';

const SCRIPT = join(import.meta.dirname, '..', '..', 'bench', 'compare-versions.ts');

async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stderr: string }> {
  const result = await runCli(args, cleanEnv(env), { script: SCRIPT });
  return { status: result.code, stderr: result.stderr };
}

test('without a commit it prints the usage and exits 2', async () => {
  const { status, stderr } = await run([]);
  assert.equal(status, 2);
  assert.match(stderr, /give exactly one commit/);
  assert.match(stderr, /Usage: npm run bench:versions -- REF/);
});

test('a name that is not a commit is refused, exit 2', async () => {
  const { status, stderr } = await run(['no-such-commit-anywhere']);
  assert.equal(status, 2);
  assert.match(stderr, /"no-such-commit-anywhere" is not a commit of this repository/);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
});

test('a setting that is not a positive number is refused, exit 2', async () => {
  const { status, stderr } = await run(['HEAD'], { BENCH_ROUNDS: 'many' });
  assert.equal(status, 2);
  assert.match(stderr, /BENCH_ROUNDS must be a positive number, got "many"/);
});

test('an option where the commit goes is refused rather than passed on to git, exit 2', async () => {
  const { status, stderr } = await run(['--output=/tmp/x']);
  assert.equal(status, 2);
  assert.match(stderr, /"--output=\/tmp\/x" is an option, not a commit/);
});
