// `run … --publish URL`: a real signed run of the suite (the embedded reference server, strict)
// sends its bundle to a registry when it ends — the bundle a run writes, not one made for a test,
// verified on arrival and stored with the run's own verdict and scope; and the publish options'
// usage errors, before anything runs. The run writes its reports where --reports says (not where
// CONFORMANCE_REPORT_DIR does), and the bundle sent is the one written there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConformance, type ConformanceRun } from '../support/conformance-run.ts';
import { readReport } from '../../mutation/suite-run.ts';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { runMain } from '../support/reference-cli.ts';
import { stopBackends } from './support/backends.ts';
import { keyPair } from './support/bundles.ts';
import { startTestRegistry, type TestRegistry } from './support/registry.ts';
import { scratchDirectory } from '../support/scratch.ts';

const vendor = keyPair();

describe('run --publish', () => {
  let registry: TestRegistry;
  let run: ConformanceRun;
  let report: ConformanceReport | undefined;
  before(async () => {
    registry = await startTestRegistry('server', { acme: [vendor.publicPem] });
    const work = scratchDirectory('run-publish-');
    const key = join(work, 'vendor.key');
    writeFileSync(key, vendor.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const reports = join(work, 'reports');
    run = await runConformance(
      [
        '--reports',
        reports,
        '--profile',
        'strict',
        '--sign-key',
        key,
        '--publish',
        registry.registry.url,
        '--publish-deployment',
        'reference',
        '--publish-version',
        '0.1.0',
        '--publish-ca-file',
        registry.caPath,
      ],
      { TENANT_AUTH_REGISTRY_TOKEN: registry.tokens.get('acme') ?? '' },
    );
    report = readReport(join(reports, 'conformance.json'));
  });
  after(async () => {
    await registry.close();
    await stopBackends();
  });

  test("the run's own bundle is verified and stored, with the run's verdict and scope", async () => {
    assert.match(run.stdout, /^Published: reference 0\.1\.0 is run \d+, /m, run.stderr);
    assert.ok(report, 'the report is where --reports says');
    assert.equal(run.report, undefined, 'nothing was written where CONFORMANCE_REPORT_DIR says');
    const history = (await registry.request('/api/v1/deployments/reference')).json as {
      runs: {
        verdict: string;
        profile: string;
        protocolsChecked: string[];
        partial: string[];
        startedAt: string;
      }[];
    };
    assert.equal(history.runs.length, 1);
    const [stored] = history.runs;
    assert.equal(stored?.verdict, report?.verdict);
    assert.equal(stored?.profile, 'strict');
    assert.deepEqual(stored?.protocolsChecked, report?.scope?.protocolsChecked);
    assert.deepEqual(stored?.partial, report?.scope?.partial);
    assert.equal(stored?.startedAt, report?.startedAt);
    // The run's exit code is its own: the publish succeeded.
    assert.equal(run.exitCode, report?.verdict === 'NOT CONFORMANT' ? 1 : 0, run.stderr);
  });

  test('publish options without --publish, or --publish without a version, are usage errors', async () => {
    const stray = await runMain(['run', '--publish-version', '1.0.0']);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /--publish-version goes with --publish URL\./);
    const partial = await runMain([
      'run',
      '--publish',
      'https://registry.example',
      '--publish-deployment',
      'x',
    ]);
    assert.equal(partial.code, 2);
    assert.match(partial.stderr, /--publish needs --publish-version V\./);
    const sql = await runMain([
      'run',
      '--publish',
      'https://r.example',
      '--publish-deployment',
      "a'--",
      '--publish-version',
      '1',
    ]);
    assert.equal(sql.code, 2);
    assert.match(sql.stderr, /--publish-deployment must be a name of lower-case letters/);
  });
});
