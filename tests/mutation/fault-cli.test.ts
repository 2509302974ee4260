// `--fault NAME` on the kit's `serve` (and `npm start`): the only way to start a faulty server
// from a shell. It lists its catalog, refuses unknown names, cannot be set from the environment,
// and a faulty server says so loudly before anything else. The server's own command
// (reference-server/cli/cli.ts) knows nothing of faults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseCli } from '../../reference-server/cli/cli-options.ts';
import { FAULT_NAMES } from '../../mutation/catalog.ts';
import { FAULT_OPTION } from '../../mutation/fault-option.ts';
import { runCli, runMain, startMain, type CliExit } from '../support/reference-cli.ts';
import { scratchDirectory } from '../support/scratch.ts';

const cli = (args: string[]): Promise<CliExit> => runMain(['serve', ...args]);

test('--fault list prints every fault with the rules that catch it', async () => {
  const { code, stdout } = await cli(['--fault', 'list']);
  assert.equal(code, 0);
  for (const name of FAULT_NAMES) assert.match(stdout, new RegExp(`^  ${name} `, 'm'));
  assert.match(stdout, /caught by TRANSPORT-HTTPS-CERT/);
});

test('an unknown fault name is a usage error (exit 2) that says how to list the names', async () => {
  const { code, stderr } = await cli(['--fault', 'no-such-fault']);
  assert.equal(code, 2);
  assert.match(stderr, /Unknown --fault "no-such-fault": run with --fault list/);
});

test('--help mentions --fault; no environment variable can set it', async () => {
  assert.match((await cli(['--help'])).stdout, /--fault NAME\|list/);
  const parsed = parseCli([], { REFERENCE_FAULT: 'hsts-disabled', FAULT: 'hsts-disabled' }, FAULT_OPTION);
  assert.ok(!parsed.help && parsed.options.replaceSteps === undefined);
  const flagged = parseCli(['--fault', 'hsts-disabled'], {}, FAULT_OPTION);
  assert.ok(!flagged.help && flagged.options.replaceSteps === 'hsts-disabled');
});

test("the server's own command has no --fault: not in its --help, an unknown option (exit 2)", async () => {
  assert.doesNotMatch((await runCli(['--help'])).stdout, /--fault/);
  const refused = await runCli(['--fault', 'list']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /Unknown option '--fault'/);
});

test('a faulty server warns on stderr and at the top of its banner before it serves', async () => {
  const work = scratchDirectory('fault-cli-');
  const server = startMain([
    'serve',
    '--fault',
    'hsts-disabled',
    ...['--port', '0', '--http-port', '0', '--cert-dir', join(work, 'certs')],
    ...['--data-dir', 'off', '--access-log', 'off'],
  ]);
  try {
    await server.waitForStdout(/Listening:/);
    assert.match(server.stderr(), /FAULT INJECTED: hsts-disabled/);
    assert.match(server.stdout().split('\n')[1] ?? '', /^!!! FAULT INJECTED: hsts-disabled$/);
    assert.match(server.stdout(), /Never use it as a reference/);
  } finally {
    server.kill();
  }
});
