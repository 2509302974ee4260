// A sharded run merged with `npm run merge-reports` exits by the merged verdict, as a single run
// would: a CI gate on the merge must see NOT CONFORMANT, and INCOMPLETE with --fail-on-incomplete.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  fixtureKeyEnvironment,
  fixtureKeyVariable,
} from '../../../conformance/deployment/embedded-target.ts';
import type { RunningReferenceServer } from '../../../reference-server/server.ts';
import { readReport } from '../../../mutation/suite-run.ts';
import { startTestServer } from '../../support/reference-client.ts';
import { cleanEnv, runMain } from '../../support/reference-cli.ts';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { runConformance, type ConformanceRun } from '../../support/conformance-run.ts';
import { SAMPLE_FAILING_RULE, SAMPLE_FAULT } from '../../support/sample-failure.ts';
import { scratchDirectory } from '../../support/scratch.ts';

interface Merge {
  exitCode: number;
  stdout: string;
  stderr: string;
  report?: ConformanceReport;
}

/** `npm run merge-reports -- …` as a user runs it; bounded. */
async function mergeReports(args: string[], reports: string): Promise<Merge> {
  const merged = await runMain(
    ['merge', '--reports', reports, ...args],
    cleanEnv({ CONFORMANCE_FAIL_ON_INCOMPLETE: '' }),
    {
      timeoutMs: 120_000,
    },
  );
  return {
    exitCode: merged.code ?? -1,
    stdout: merged.stdout,
    stderr: merged.stderr,
    report: readReport(join(reports, 'conformance.json')),
  };
}

/** `tenant-auth-conformance ARGS…`; bounded. */
async function cliOf(args: string[]): Promise<Merge> {
  const exit = await runMain(args, cleanEnv({ CONFORMANCE_FAIL_ON_INCOMPLETE: '' }), { timeoutMs: 120_000 });
  return { exitCode: exit.code ?? -1, stdout: exit.stdout, stderr: exit.stderr };
}

/** The blob files of shard runs, gathered in one fresh folder as the README says. */
function gatherBlobs(runs: readonly ConformanceRun[]): string {
  const folder = scratchDirectory('conformance-blobs-');
  for (const run of runs) {
    const blobs = join(run.reportDir, 'blob');
    for (const file of readdirSync(blobs)) copyFileSync(join(blobs, file), join(folder, file));
  }
  return folder;
}

describe('merge-reports exits by the merged verdict', () => {
  const work = scratchDirectory('conformance-merge-');
  let server: RunningReferenceServer;
  let shards: ConformanceRun[] = [];

  before(async () => {
    // A MUST rule fails against this variant: quotes around the key are stripped.
    server = (await startTestServer({ fault: SAMPLE_FAULT })).server;
    const target = join(work, 'target.json');
    writeFileSync(
      target,
      JSON.stringify({
        baseUrl: server.baseUrl('acme'),
        plainHttpBaseUrl: server.plainHttpBaseUrl('acme'),
        credentials: { fullAccess: fixtureKeyVariable('key_acme_prod_full') },
        caFile: server.caPath,
        hosts: { '*.localhost': '127.0.0.1' },
      }),
    );
    shards = await Promise.all(
      ['1/2', '2/2'].map((shard) =>
        runConformance(['--target', target, '--shard', shard, '--workers', '1'], fixtureKeyEnvironment()),
      ),
    );
  });

  after(() => server.close());

  const failingShard = (): ConformanceRun => {
    const shard = shards.find((run) => run.report?.verdict === 'NOT CONFORMANT');
    assert.ok(shard, 'one shard holds the failing rule');
    return shard;
  };
  const passingShard = (): ConformanceRun => {
    const shard = shards.find((run) => run !== failingShard());
    assert.ok(shard);
    return shard;
  };

  test('both shards merged: NOT CONFORMANT, exit 1', async () => {
    const merged = await mergeReports([gatherBlobs(shards)], join(work, 'merged-all'));
    assert.equal(merged.report?.verdict, 'NOT CONFORMANT', merged.stderr);
    assert.equal(merged.report?.rules.find((rule) => rule.id === SAMPLE_FAILING_RULE)?.verdict, 'fail');
    assert.equal(merged.exitCode, 1, merged.stderr);
  });

  test("the shards' blobs without their records, a failure among them: NOT CONFORMANT, exit 1 (the printed verdict's)", async () => {
    const folder = gatherBlobs(shards);
    for (const name of readdirSync(folder)) if (name.endsWith('.json')) rmSync(join(folder, name));
    const merged = await mergeReports([folder], join(work, 'merged-without-records'));
    assert.equal(merged.report?.verdict, 'NOT CONFORMANT', merged.stderr);
    assert.match(merged.stdout, /VERDICT: NOT CONFORMANT/);
    assert.equal(merged.exitCode, 1, merged.stderr);
  });

  test('merged with --sign-key: a signed bundle of the merged run, each shard’s certificates in it, which verify trusts with the key', async () => {
    const keys = scratchDirectory('merge-keys-');
    const pair = generateKeyPairSync('ed25519');
    writeFileSync(join(keys, 'k.key'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(join(keys, 'k.pub'), pair.publicKey.export({ type: 'spki', format: 'pem' }));
    const folder = gatherBlobs(shards);
    assert.deepEqual(
      readdirSync(folder)
        .filter((name) => name.endsWith('.json'))
        .sort(),
      ['conformance-shard-1-of-2.json', 'conformance-shard-2-of-2.json'],
    );
    const reports = join(work, 'merged-signed');
    const merged = await mergeReports(['--sign-key', join(keys, 'k.key'), folder], reports);
    assert.equal(merged.exitCode, 1, merged.stderr);
    assert.deepEqual(
      merged.report?.shards?.map((shard) => shard.shard),
      ['1/2', '2/2'],
    );
    for (const shard of merged.report?.shards ?? []) assert.equal(shard.tls?.[0]?.field, 'baseUrl');
    assert.deepEqual(merged.report?.scope?.shards, ['1/2', '2/2']);
    // The shards ran over HTTP/1.1 alone (this file's runs, for speed): the merge says so, once.
    assert.deepEqual(merged.report?.scope?.rulesSelected, merged.report?.scope?.rulesInCatalog);
    assert.equal(merged.report?.scope?.partial.length, 1);
    assert.match(
      merged.report?.scope?.partial[0] ?? '',
      /^HTTP\/2 was not checked, but the target offers it/,
    );
    const verified = await cliOf(['verify', join(reports, 'bundle'), '--public-key', join(keys, 'k.pub')]);
    assert.equal(verified.exitCode, 0, verified.stderr);
    assert.match(verified.stdout, /^VERIFIED: NOT CONFORMANT · HTTP\/1\.1 only — signed by/);
    assert.match(verified.stdout, /^Shards: +1\/2 started .*; 2\/2 started /m);

    // Shards of different targets are not one run: merge warns, verify refuses.
    const record = join(folder, 'conformance-shard-2-of-2.json');
    const forged = JSON.parse(readFileSync(record, 'utf8')) as { target: { baseUrl: string } };
    forged.target.baseUrl = 'https://elsewhere.example/v1';
    writeFileSync(record, JSON.stringify(forged));
    const mixedReports = join(work, 'merged-mixed');
    const mixed = await mergeReports(['--sign-key', join(keys, 'k.key'), folder], mixedReports);
    assert.match(mixed.stderr, /Warning: shard 2\/2 ran a different target than shard 1\/2/);
    const refused = await cliOf([
      'verify',
      join(mixedReports, 'bundle'),
      '--public-key',
      join(keys, 'k.pub'),
    ]);
    assert.equal(refused.exitCode, 1);
    assert.match(
      refused.stderr,
      /merges shards that are not one run: shard 2\/2 ran a different target than shard 1\/2/,
    );
  });

  test("only the shard without the failing rule: the run's checker still sees the quoted key served to another rule's probe, never CONFORMANT", async () => {
    const folder = gatherBlobs([passingShard()]);
    for (const options of [[], ['--fail-on-incomplete']]) {
      const merged = await mergeReports([...options, folder], join(work, `merged-one-${options.length}`));
      assert.notEqual(merged.report?.verdict, 'CONFORMANT', merged.stderr);
      assert.notEqual(merged.exitCode, 0, merged.stderr);
      // The MUST it breaks is not among the shard's rules: the run says so and names the sender.
      assert.match(merged.stderr, /AUTH-QUOTED-KEY-REJECTED \(not selected in this run\)/);
      assert.match(merged.stderr, /a request sent by KEY-NOT-ECHOED/);
    }
  });

  test('usage: --help exits 0, an unknown option or a missing folder exits 2', async () => {
    const help = await mergeReports(['--help'], join(work, 'help'));
    assert.equal(help.exitCode, 0);
    assert.match(help.stdout, /Exit codes:[\s\S]*3 +SETUP ERROR/);
    const bogus = await mergeReports(['--bogus'], join(work, 'bogus'));
    assert.equal(bogus.exitCode, 2);
    assert.match(
      bogus.stderr,
      /Valid options: --reports, --fail-on-incomplete, --bundle, --no-bundle, --sign-key, --help/,
    );
    const missing = await mergeReports([join(work, 'no-such-folder')], join(work, 'missing'));
    assert.equal(missing.exitCode, 2);
    assert.match(missing.stderr, /Give one folder that holds the shards' blob reports/);
  });
});
