// A target with `keyMinting` needs no hand-made keys: the suite creates them through the
// reference's admin API before the run and revokes them after it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { MADE_UP_MARK } from '../../../conformance/judging/key-variants.ts';
import { REPO_ROOT, runBounded, runConformance } from '../../support/conformance-run.ts';
import { cleanEnv, startCli, type CliProcess } from '../../support/reference-cli.ts';
import { compiledModule } from '../../support/compiled-kit.ts';
import { scanDirectory, scanText } from '../../support/artifact-scan.ts';
import { NOT_APPLICABLE_ON_REFERENCE } from '../../support/rule-declarations.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';
const work = scratchDirectory('conformance-minting-');
let server: CliProcess;
let port = '';

before(async () => {
  server = startCli(
    [
      // Lists paged two a page, as the embedded target's: every rule is exercised, the page-cursor one too.
      ...['--port', '0', '--http-port', '0', '--access-log', 'off', '--page-size', '2'],
      ...['--cert-dir', join(work, 'certs'), '--data-dir', join(work, 'data')],
    ],
    cleanEnv({ REFERENCE_ADMIN_TOKEN: ADMIN_TOKEN }),
  );
  [, port = ''] = await server.waitForStdout(/Listening: https port (\d+)/);
});

after(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
});

function targetFile(name: string): string {
  const file = join(work, name);
  writeFileSync(
    file,
    JSON.stringify({
      baseUrl: `https://acme.api.localhost:${port}/v1`,
      otherTenantBaseUrl: `https://globex.api.localhost:${port}/v1`,
      sandboxBaseUrl: `https://sandbox-acme.api.localhost:${port}/v1`,
      plainHttpBaseUrl: 'http://acme.api.localhost:1/v1',
      keyMinting: {
        adminBaseUrl: `https://admin.localhost:${port}/v1`,
        adminToken: 'TEST_ADMIN_TOKEN',
        probe: true,
      },
      caFile: join(work, 'certs', 'ca.crt'),
      hosts: { '*.localhost': '127.0.0.1' },
    }),
  );
  return file;
}

function adminGet(path: string): Promise<{ data: { name: string; revoked: boolean }[] }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        servername: 'admin.localhost',
        path: `/v1${path}`,
        headers: { Host: `admin.localhost:${port}`, Authorization: `Bearer ${ADMIN_TOKEN}` },
        ca: readFileSync(join(work, 'certs', 'ca.crt')),
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(JSON.parse(body) as { data: { name: string; revoked: boolean }[] }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('a run with only minted keys evaluates every rule, passes, and leaves every minted key revoked', async () => {
  const run = await runConformance(['--target', targetFile('minting.json')], {
    TEST_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  assert.equal(run.exitCode, 0, `${run.stdout.slice(-3000)}\n${run.stderr}`);
  assert.equal(run.report?.verdict, 'CONFORMANT');
  assert.deepEqual(
    run.report?.rules.filter((rule) => rule.verdict !== 'pass').map((rule) => rule.id),
    // The reference sets no cookie on a served answer: that rule is not applicable, never passed
    // (AUTH-COOKIE-NOT-CREDENTIAL's declaration says so).
    NOT_APPLICABLE_ON_REFERENCE.map(({ id }) => id),
  );
  // The report says which keys the kit answers for; the revoked one it revoked itself is not the
  // vendor's word (the other inputs of the target file still are).
  assert.deepEqual(run.report?.target.keysMinted, [
    'fullAccess',
    'readOnly',
    'noCustomersPermission',
    'revoked',
    'sandbox',
    'otherTenant',
    'probe',
  ]);
  assert.ok(run.report?.scope?.vendorsWord?.some((line) => line.startsWith('hosts ')));
  assert.ok(!run.report?.scope?.vendorsWord?.some((line) => line.startsWith('credentials.revoked ')));

  const minted = [
    ...(await adminGet('/tenants/acme/keys')).data,
    ...(await adminGet('/tenants/globex/keys')).data,
  ].filter((key) => key.name.startsWith('conformance run '));
  assert.equal(
    minted.length,
    7,
    'full access, read only, no customers, revoked, sandbox, probe, other tenant',
  );
  assert.deepEqual(
    minted.filter((key) => !key.revoked).map((key) => key.name),
    [],
  );

  // The minted keys are unknown to this test; no whole key of the reference's format may appear,
  // but for the keys the suite made up to be rejected, which are marked (MADE_UP_MARK).
  const anyKey = { 'a whole API key': new RegExp(`mbk_(?:prod|dev)_(?!${MADE_UP_MARK})[A-Za-z0-9]{32}`) };
  assert.deepEqual(scanDirectory(run.reportDir, anyKey).findings, []);
  assert.deepEqual(
    [...scanText('stdout', run.stdout, anyKey), ...scanText('stderr', run.stderr, anyKey)],
    [],
  );
});

test('a wrong admin token stops the run before any check, saying why, without repeating the token', async () => {
  const wrong = 'wrong-admin-token-0123456789abcdefghijklmn';
  const run = await runConformance(['--target', targetFile('wrong-token.json')], { TEST_ADMIN_TOKEN: wrong });
  assert.notEqual(run.exitCode, 0);
  const output = `${run.stdout}\n${run.stderr}`;
  assert.match(
    output,
    /Key minting failed: POST https:\/\/admin\.localhost:\d+\/v1\/tenants\/acme\/keys answered 401/,
  );
  assert.ok(!output.includes(wrong) && !output.includes(ADMIN_TOKEN));
});

test("a team's config: its set-up project mints the keys, the rule uses them, its teardown project revokes them", async () => {
  const mintedBefore = await mintedKeys();
  // A team's project of its own: a package of ES modules, its config beside it.
  const team = scratchDirectory('team-minting-');
  mkdirSync(join(team, 'reports'), { recursive: true });
  writeFileSync(join(team, 'package.json'), '{ "name": "team", "private": true, "type": "module" }\n');
  // Its @playwright/test is the kit's (the packaging tests install both from the tarball).
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(team, 'node_modules'), 'dir');
  const target = targetFile('team-minting.json');
  writeFileSync(
    join(team, 'playwright.config.ts'),
    [
      "import { defineConfig } from '@playwright/test';",
      `import { conformanceProjects, conformanceReporter } from ${JSON.stringify(compiledModule('library/playwright'))};`,
      'export default defineConfig({',
      `  reporter: [conformanceReporter({ outputDir: ${JSON.stringify(join(team, 'reports'))} }), ['list']],`,
      `  projects: conformanceProjects({ target: { file: ${JSON.stringify(target)} }, protocols: ['h1'] }),`,
      '});',
      '',
    ].join('\n'),
  );
  const run = await runBounded(
    join(REPO_ROOT, 'node_modules', '.bin', 'playwright'),
    ['test', '--config', join(team, 'playwright.config.ts'), '--grep', 'KEY-VALID-SERVED:'],
    { ...cleanEnv(), TEST_ADMIN_TOKEN: ADMIN_TOKEN },
    180_000,
  );
  assert.equal(run.exitCode, 0, `${run.stdout.slice(-3000)}\n${run.stderr}`);
  const report = JSON.parse(readFileSync(join(team, 'reports', 'conformance.json'), 'utf8')) as {
    rules: { id: string; verdict: string }[];
  };
  assert.equal(report.rules.find((rule) => rule.id === 'KEY-VALID-SERVED')?.verdict, 'pass');
  const minted = (await mintedKeys()).filter((key) => !mintedBefore.some((old) => old.name === key.name));
  assert.equal(minted.length, 7, 'the set-up project minted every key the target asks for');
  assert.deepEqual(
    minted.filter((key) => !key.revoked).map((key) => key.name),
    [],
    'the teardown project revoked them',
  );
  const output = `${run.stdout}\n${run.stderr}`;
  assert.ok(!output.includes(ADMIN_TOKEN), 'the admin token is never printed');
});

async function mintedKeys(): Promise<{ name: string; revoked: boolean }[]> {
  return [
    ...(await adminGet('/tenants/acme/keys')).data,
    ...(await adminGet('/tenants/globex/keys')).data,
  ].filter((key) => key.name.startsWith('conformance run '));
}
