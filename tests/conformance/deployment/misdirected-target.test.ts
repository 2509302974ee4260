// A port mapping that reaches a server which answers 421 Misdirected Request to every request (the
// Host's port is not its own) is a set-up mistake, not a deployment that fails 15 MUST rules: the
// preflight names the 421 and what it means, the verdict is SETUP ERROR (exit 3), and no rule is
// judged. The control is the same server reached on its own port: the rules run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import {
  connect as connectTcp,
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
} from 'node:net';
import { join } from 'node:path';
import { once } from 'node:events';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import { EXIT_CODE } from '../../../conformance/report/verdict.ts';
import { startTestServer, type TestServer } from '../../support/reference-client.ts';
import { runConformance } from '../../support/conformance-run.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const keys = fixtureKeyEnvironment();
let server: TestServer;
/** A port mapping: every connection to it is sent to the reference server's HTTPS port. */
let mapping: Server;

before(async () => {
  server = await startTestServer();
  mapping = createTcpServer((client) => {
    const upstream = connectTcp(server.server.httpsPort, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  mapping.listen(0, '127.0.0.1');
  await once(mapping, 'listening');
});

after(async () => {
  mapping.close();
  await server.close();
});

function targetOn(port: number): string {
  const file = join(scratchDirectory('misdirected-'), 'target.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'acme through a port mapping',
      baseUrl: `https://acme.api.localhost:${port}/v1`,
      plainHttpBaseUrl: `http://acme.api.localhost:${server.server.httpPort}/v1`,
      credentials: { fullAccess: 'REFERENCE_KEY_ACME_PROD_FULL' },
      caFile: join(server.certDir, 'ca.crt'),
      hosts: { '*.localhost': '127.0.0.1' },
    }),
  );
  return file;
}

const GREP = ['--grep', 'KEY-VALID-SERVED:|AUTH-MISSING-HEADER:'];

test('a base URL answered 421: SETUP ERROR naming the 421 and what it means, no rule judged', async () => {
  const run = await runConformance(
    ['--target', targetOn((mapping.address() as AddressInfo).port), ...GREP],
    keys,
  );
  assert.equal(run.exitCode, EXIT_CODE.setup, run.stdout + run.stderr);
  assert.equal(run.report?.verdict, 'SETUP ERROR', run.stdout);
  const problem = run.report?.setupProblems?.[0];
  assert.equal(problem?.stage, 'HTTP');
  assert.match(
    problem?.problem ?? '',
    /answered 421 Misdirected Request: the request reached a server that does not serve/,
  );
  assert.match(problem?.fix ?? '', /port mapping/);
  assert.deepEqual(
    run.report?.rules.filter((rule) => rule.verdict === 'fail').map((rule) => rule.id),
    [],
  );
});

test('the control: the same server on its own port is judged (KEY-VALID-SERVED passes)', async () => {
  const run = await runConformance(['--target', targetOn(server.server.httpsPort), ...GREP], keys);
  const verdicts = new Map(run.report?.rules.map((rule) => [rule.id, rule.verdict]));
  assert.equal(verdicts.get('KEY-VALID-SERVED'), 'pass', run.stdout + run.stderr);
});
