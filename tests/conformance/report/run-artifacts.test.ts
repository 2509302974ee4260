// What a QA lead gets from a run against a faulty deployment (the reference server with quotes
// stripped from keys): conformance.html with the failure's evidence, a curl command from it that
// reproduces the failure for real, JUnit that shows it as a failure, exchanges.har holding every
// exchange the evidence points to, plain console output — and `--list` leaves all of it alone.
import { faultySteps } from '../../../mutation/catalog.ts';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { curlCommand } from '../../../conformance/report/curl.ts';
import type { Har } from '../../../conformance/report/har.ts';
import { REPORT_FILES } from '../../../conformance/report/write-reports.ts';
import {
  fixtureKeyEnvironment,
  fixtureKeyVariable,
} from '../../../conformance/deployment/embedded-target.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../../reference-server/store/fixtures.ts';
import { startReferenceServer, type RunningReferenceServer } from '../../../reference-server/server.ts';
import { ensureCertificates } from '../../../reference-server/listeners/certificates.ts';
import { cleanEnv, runMain } from '../../support/reference-cli.ts';
import { runConformance, type ConformanceRun } from '../../support/conformance-run.ts';
import { SAMPLE_FAILING_RULE, SAMPLE_FAULT } from '../../support/sample-failure.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const keys = fixtureKeyEnvironment();
let server: RunningReferenceServer;
let run: ConformanceRun;
let targetFile: string;

before(async () => {
  const work = scratchDirectory('run-artifacts-');
  await ensureCertificates(join(work, 'certs'), 'localhost');
  const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
  server = await startReferenceServer({
    host: '127.0.0.1',
    httpsPort: 0,
    httpPort: 0,
    domain: 'localhost',
    fixtures,
    certDir: join(work, 'certs'),
    steps: faultySteps(SAMPLE_FAULT, fixtures),
  });
  targetFile = join(work, 'target.json');
  writeFileSync(
    targetFile,
    JSON.stringify({
      name: 'reference server, quotes stripped',
      baseUrl: server.baseUrl('acme'),
      otherTenantBaseUrl: server.baseUrl('globex'),
      plainHttpBaseUrl: server.plainHttpBaseUrl('acme'),
      credentials: {
        fullAccess: fixtureKeyVariable('key_acme_prod_full'),
        otherTenant: fixtureKeyVariable('key_globex_prod_full'),
      },
      caFile: server.caPath,
      hosts: { '*.localhost': '127.0.0.1' },
    }),
  );
  run = await runConformance(['--target', targetFile, '--workers=1'], keys);
});

after(async () => {
  await server.close();
});

const read = (name: string): string => readFileSync(join(run.reportDir, name), 'utf8');

test('the run fails the quoted-key rule, and the console output is plain text', () => {
  assert.equal(run.exitCode, 1, run.stderr);
  assert.equal(run.report?.verdict, 'NOT CONFORMANT');
  assert.equal(run.report?.rules.find((rule) => rule.id === SAMPLE_FAILING_RULE)?.verdict, 'fail');
  assert.ok(!`${run.stdout}${run.stderr}`.includes('\u001b['), 'no escape code in piped output');
  assert.match(run.stdout, /^VERDICT: NOT CONFORMANT/m);
});

test("the failure's curl command, run with the target's variables, reproduces it", async () => {
  const rule = run.report?.rules.find((candidate) => candidate.id === SAMPLE_FAILING_RULE);
  const evidence = rule?.evidence?.[0];
  assert.ok(evidence && run.report);
  const header = evidence.requestHeaders?.find((candidate) => candidate.name === 'Authorization');
  assert.equal(header?.value, `Bearer "$${fixtureKeyVariable('key_acme_prod_full')}"`);
  const command = curlCommand(evidence, run.report.target);
  assert.ok(
    read(REPORT_FILES.html).includes(
      command.replace(/&/g, '&#38;').replace(/"/g, '&#34;').replace(/'/g, '&#39;'),
    ),
  );
  // Asynchronously: the faulty server answers from this very process.
  const { stdout: answer } = await promisify(execFile)(
    'bash',
    ['--norc', '--noprofile', '-c', `${command} --silent`],
    {
      env: { PATH: process.env.PATH, ...keys },
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  assert.match(answer, /^HTTP\/1\.1 200 /, 'the faulty server serves the quoted key, as the report says');
  assert.match(answer, /cus_acme_prod_001/);
});

test('junit.xml shows the failed rule as a <failure> with the expected-vs-got message', () => {
  const junit = read(REPORT_FILES.junit);
  assert.equal(XMLValidator.validate(junit), true);
  assert.match(junit, new RegExp(`<testsuites [^>]*failures="${run.report?.summary.fail}"`));
  assert.match(
    junit,
    new RegExp(
      `<testcase name="MUST ${SAMPLE_FAILING_RULE}: [^"]*"[^>]*>\\s*<failure message="A valid key in double quotes: [^"]*" type="MUST rule failed">`,
    ),
  );
});

test('exchanges.har holds every exchange of the run, the evidence points into it, and --list leaves the reports alone', async () => {
  const har = JSON.parse(read(REPORT_FILES.har)) as Har;
  const ids = new Set(har.log.entries.map((entry) => entry._id));
  const rulesRun = run.report?.rules.filter((rule) => rule.verdict !== 'not-evaluated') ?? [];
  const rulesInHar = new Set(har.log.entries.map((entry) => entry._rule));
  // Rules that send nothing (VERSION-PATH reads the base URL) have no entries.
  assert.ok(rulesInHar.size >= rulesRun.length - 2, `${rulesInHar.size} rules in the HAR`);
  for (const rule of run.report?.rules ?? [])
    for (const evidence of rule.evidence ?? [])
      assert.ok(evidence.exchange && ids.has(evidence.exchange), `${rule.id}: its evidence is in the HAR`);
  const before = snapshot(run.reportDir);
  const list = await runMain(
    ['run', '--target', targetFile, '--list'],
    cleanEnv({ ...keys, CONFORMANCE_REPORT_DIR: run.reportDir }),
    {
      timeoutMs: 120_000,
    },
  );
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(snapshot(run.reportDir), before, '--list wrote nothing');
});

function snapshot(directory: string): Record<string, number> {
  return Object.fromEntries(
    readdirSync(directory)
      .filter((name) => statSync(join(directory, name)).isFile())
      .map((name) => [name, statSync(join(directory, name)).mtimeMs]),
  );
}
