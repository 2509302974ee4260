// A large matrix can be spread over machines: shards write blob reports, merge-reports joins them
// into the same conformance report a single run gives — with no key in any blob.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import type { Har } from '../../../conformance/report/har.ts';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import { OVER_OFFERED_PROTOCOLS, REPO_ROOT, runConformance } from '../../support/conformance-run.ts';
import { scanDirectory, secretForms } from '../../support/artifact-scan.ts';

test('two shards merged give one complete report, and their blobs hold no key', async () => {
  const shards = await Promise.all([runConformance(['--shard', '1/2']), runConformance(['--shard', '2/2'])]);
  const blobs = mkdtempSync(join(tmpdir(), 'conformance-blobs-'));
  for (const shard of shards) {
    assert.equal(shard.exitCode, 0, shard.stderr);
    assert.equal(shard.report?.verdict, 'INCOMPLETE', 'a shard alone does not evaluate every rule');
    assert.match(shard.report?.shard ?? '', /^[12]\/2$/);
    for (const file of readdirSync(join(shard.reportDir, 'blob')))
      copyFileSync(join(shard.reportDir, 'blob', file), join(blobs, file));
  }
  // Each shard's blob, and its record for the merge's certificate (conformance-shard-N-of-2.json).
  assert.deepEqual(
    readdirSync(blobs)
      .map((file) => file.replace(/^report-.*\.zip$/, 'blob.zip'))
      .sort(),
    ['blob.zip', 'blob.zip', 'conformance-shard-1-of-2.json', 'conformance-shard-2-of-2.json'],
  );
  assert.deepEqual(scanDirectory(blobs, secretForms(fixtureKeyEnvironment())).findings, []);

  const merged = join(mkdtempSync(join(tmpdir(), 'conformance-merged-')), 'reports');
  mkdirSync(merged);
  const merge = spawnSync(
    join(REPO_ROOT, 'node_modules', '.bin', 'playwright'),
    ['merge-reports', '--config', 'playwright.config.ts', blobs],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, CONFORMANCE_REPORT_DIR: merged },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.equal(merge.status, 0, merge.stderr);
  const report = JSON.parse(readFileSync(join(merged, 'conformance.json'), 'utf8')) as ConformanceReport;
  assert.equal(report.verdict, 'CONFORMANT');
  assert.equal(report.shard, undefined);
  assert.equal(report.target.name, 'reference server');
  assert.deepEqual(
    report.rules.map((rule) => [rule.id, rule.verdict]),
    RULES.map((rule) => [rule.id, 'pass']),
  );
  // The exchanges travel in the blobs too: the merged HAR holds those of both shards.
  const har = JSON.parse(readFileSync(join(merged, 'exchanges.har'), 'utf8')) as Har;
  const rulesInHar = new Set(har.log.entries.map((entry) => entry._rule));
  const shardRules = shards.map((shard) => new Set(shard.outcomes.map((outcome) => outcome.ruleId)));
  for (const rules of shardRules)
    assert.ok(
      [...rules].some((id) => rulesInHar.has(id)),
      'each shard’s exchanges are in the merged HAR',
    );
  assert.match(
    readFileSync(join(merged, 'junit.xml'), 'utf8'),
    new RegExp(`<testsuites [^>]*tests="${RULES.length}"`),
  );
});

test('a shard that holds one protocol’s project alone checked that protocol alone: partial, never CONFORMANT under strict', async () => {
  // One rule over both protocols is two tests, one in each protocol's project: each shard holds one.
  const shards = await Promise.all(
    ['1/2', '2/2'].map((shard) =>
      runConformance(
        ['--profile', 'strict', '--grep', 'KEY-VALID-SERVED:', '--shard', shard, '--no-bundle'],
        OVER_OFFERED_PROTOCOLS,
      ),
    ),
  );
  const checked = shards.map((shard) => shard.report?.scope?.protocolsChecked ?? []);
  assert.deepEqual(
    checked.map((protocols) => protocols.length),
    [1, 1],
    `each shard checked one protocol: ${JSON.stringify(checked)}`,
  );
  assert.deepEqual(checked.flat().sort(), ['HTTP/1.1', 'HTTP/2']);
  for (const shard of shards) {
    assert.equal(shard.report?.verdict, 'INCOMPLETE', shard.stdout);
    assert.ok(
      shard.report?.scope?.partial.some((reason) => /was not checked, but the target offers it/.test(reason)),
      JSON.stringify(shard.report?.scope),
    );
  }
});
