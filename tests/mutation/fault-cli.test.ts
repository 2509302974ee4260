// `--fault NAME` on the kit's `serve` (and `npm start`): the only way to start a faulty server
// from a shell. It lists its catalog, refuses unknown names, cannot be set from the environment,
// and a faulty server says so loudly before anything else. The server's own command
// (reference-server/cli/cli.ts) knows nothing of faults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCli } from '../../reference-server/cli/cli-options.ts';
import { FAULT_NAMES } from '../../mutation/catalog.ts';
import { FAULT_OPTION } from '../../mutation/fault-option.ts';
import { REPO_ROOT } from '../support/conformance-run.ts';

const CLI = ['--import', 'tsx', join(REPO_ROOT, 'cli', 'main.ts'), 'serve'];
const SERVER_CLI = ['--import', 'tsx', join(REPO_ROOT, 'reference-server', 'cli', 'cli.ts')];
/** Start-up includes compiling TypeScript on first use; a hung process fails the test instead. */
const START_TIMEOUT_MS = 30_000;

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: START_TIMEOUT_MS,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('--fault list prints every fault with the rules that catch it', () => {
  const { status, stdout } = cli(['--fault', 'list']);
  assert.equal(status, 0);
  for (const name of FAULT_NAMES) assert.match(stdout, new RegExp(`^  ${name} `, 'm'));
  assert.match(stdout, /caught by TRANSPORT-HTTPS-CERT/);
});

test('an unknown fault name is a usage error (exit 2) that says how to list the names', () => {
  const { status, stderr } = cli(['--fault', 'no-such-fault']);
  assert.equal(status, 2);
  assert.match(stderr, /Unknown --fault "no-such-fault": run with --fault list/);
});

test('--help mentions --fault; no environment variable can set it', () => {
  assert.match(cli(['--help']).stdout, /--fault NAME\|list/);
  const parsed = parseCli([], { REFERENCE_FAULT: 'hsts-disabled', FAULT: 'hsts-disabled' }, FAULT_OPTION);
  assert.ok(!parsed.help && parsed.options.replaceSteps === undefined);
  const flagged = parseCli(['--fault', 'hsts-disabled'], {}, FAULT_OPTION);
  assert.ok(!flagged.help && flagged.options.replaceSteps === 'hsts-disabled');
});

test("the server's own command has no --fault: not in its --help, an unknown option (exit 2)", () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, [...SERVER_CLI, ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: START_TIMEOUT_MS,
    });
  assert.doesNotMatch(run(['--help']).stdout, /--fault/);
  const refused = run(['--fault', 'list']);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /Unknown option '--fault'/);
});

test('a faulty server warns on stderr and at the top of its banner before it serves', async () => {
  const work = mkdtempSync(join(tmpdir(), 'fault-cli-'));
  const child = spawn(
    process.execPath,
    [
      ...CLI,
      '--fault',
      'hsts-disabled',
      ...['--port', '0', '--http-port', '0', '--cert-dir', join(work, 'certs')],
      ...['--data-dir', 'off', '--access-log', 'off'],
    ],
    { cwd: REPO_ROOT },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!/Listening:/.test(stdout) && child.exitCode === null) {
      assert.ok(Date.now() < deadline, `the faulty server did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(stderr, /FAULT INJECTED: hsts-disabled/);
    assert.match(stdout.split('\n')[1] ?? '', /^!!! FAULT INJECTED: hsts-disabled$/);
    assert.match(stdout, /Never use it as a reference/);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }
});
