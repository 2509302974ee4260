// A large matrix can be spread over machines: shards write blob reports, `merge` joins them into
// the same conformance report a single run gives — with no key in any blob. A merge judges each
// shard by what its blob shows (the protocol each test ran over, the origins its exchanges went
// to, the certificates its set-up saw), never by the record left beside the blob.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import type { Har } from '../../../conformance/report/har.ts';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import {
  OVER_OFFERED_PROTOCOLS,
  runConformance,
  type ConformanceRun,
} from '../../support/conformance-run.ts';
import { cleanEnv, runMain } from '../../support/reference-cli.ts';
import { generateKeyPair } from '../../../conformance/attestation/signing-key.ts';
import type { ShardRecord } from '../../../conformance/report/shard-records.ts';
import { scanDirectory, secretForms } from '../../support/artifact-scan.ts';
import { scratchDirectory } from '../../support/scratch.ts';

/** Gathers each shard's blob/ (its blob and its record) into one new folder, as CI artifacts are. */
function gather(shards: readonly ConformanceRun[]): string {
  const blobs = scratchDirectory('conformance-blobs-');
  for (const shard of shards)
    for (const file of readdirSync(join(shard.reportDir, 'blob')))
      copyFileSync(join(shard.reportDir, 'blob', file), join(blobs, file));
  return blobs;
}

/** `merge --sign-key` of `blobs`: its exit, output and report. */
async function merge(
  blobs: string,
  key: string,
): Promise<{ code: number | null; output: string; reports: string }> {
  const reports = join(scratchDirectory('conformance-merged-'), 'reports');
  const merged = await runMain(['merge', '--reports', reports, '--sign-key', key, blobs], cleanEnv(), {
    timeoutMs: 120_000,
  });
  return { code: merged.code, output: `${merged.stdout}${merged.stderr}`, reports };
}

async function verifyBundleOf(
  reports: string,
  publicKey: string,
): Promise<{ code: number | null; output: string }> {
  const verified = await runMain(['verify', join(reports, 'bundle'), '--public-key', publicKey]);
  return { code: verified.code, output: `${verified.stdout}${verified.stderr}` };
}

describe('an honest sharded run over both protocols, strict', () => {
  let shards: ConformanceRun[];
  let blobs: string;
  let keys: string;
  before(async () => {
    shards = await Promise.all(
      ['1/2', '2/2'].map((shard) =>
        runConformance(['--profile', 'strict', '--shard', shard, '--no-bundle'], OVER_OFFERED_PROTOCOLS),
      ),
    );
    blobs = gather(shards);
    keys = scratchDirectory('sharding-keys-');
    const { privatePem, publicPem } = generateKeyPair();
    writeFileSync(join(keys, 'vendor'), privatePem, { mode: 0o600 });
    writeFileSync(join(keys, 'vendor.pub'), publicPem);
  });

  test('each shard alone is INCOMPLETE; their blobs hold no key', () => {
    for (const shard of shards) {
      assert.equal(shard.exitCode, 0, shard.stderr);
      assert.equal(shard.report?.verdict, 'INCOMPLETE', 'a shard alone does not evaluate every rule');
      assert.match(shard.report?.shard ?? '', /^[12]\/2$/);
    }
    // Each shard's blob, and its record for the merge's certificate (conformance-shard-N-of-2.json).
    assert.deepEqual(
      readdirSync(blobs)
        .map((file) => file.replace(/^report-.*\.zip$/, 'blob.zip'))
        .sort(),
      ['blob.zip', 'blob.zip', 'conformance-shard-1-of-2.json', 'conformance-shard-2-of-2.json'],
    );
    assert.deepEqual(scanDirectory(blobs, secretForms(fixtureKeyEnvironment())).findings, []);
  });

  test('merged, they are one complete run: CONFORMANT over both protocols, verified', async () => {
    const merged = await merge(blobs, join(keys, 'vendor'));
    assert.equal(merged.code, 0, merged.output);
    assert.doesNotMatch(merged.output, /Warning/);
    const report = JSON.parse(
      readFileSync(join(merged.reports, 'conformance.json'), 'utf8'),
    ) as ConformanceReport;
    assert.equal(report.verdict, 'CONFORMANT', JSON.stringify(report.scope));
    assert.deepEqual(report.scope?.protocolsChecked, ['HTTP/1.1', 'HTTP/2']);
    assert.deepEqual(report.scope?.partial, []);
    assert.equal(report.shard, undefined);
    assert.equal(report.target.name, 'reference server');
    // Every rule judged: a pass, or not applicable to what the reference offers — none failed or
    // could not run.
    assert.deepEqual(
      report.rules.map((rule) => rule.id),
      RULES.map((rule) => rule.id),
    );
    assert.deepEqual(
      report.rules.filter((rule) => rule.verdict !== 'pass' && rule.verdict !== 'not-applicable'),
      [],
    );
    // What each shard reached and saw, from its blob.
    for (const shard of report.shards ?? []) assert.ok((shard.seen?.tls.length ?? 0) > 0, shard.shard);
    // The exchanges travel in the blobs too: the merged HAR holds those of both shards.
    const har = JSON.parse(readFileSync(join(merged.reports, 'exchanges.har'), 'utf8')) as Har;
    const rulesInHar = new Set(har.log.entries.map((entry) => entry._rule));
    for (const shard of shards)
      assert.ok(
        shard.outcomes.some((outcome) => rulesInHar.has(outcome.ruleId)),
        'each shard’s exchanges are in the merged HAR',
      );
    assert.match(
      readFileSync(join(merged.reports, 'junit.xml'), 'utf8'),
      new RegExp(`<testsuites [^>]*tests="${RULES.length}"`),
    );
    const verified = await verifyBundleOf(merged.reports, join(keys, 'vendor.pub'));
    assert.equal(verified.code, 0, verified.output);
    assert.match(verified.output, /^VERIFIED: CONFORMANT — /);
  });

  test("a shard's record edited to name other certificates and another base URL is refused by its own evidence", async () => {
    const edited = gather(shards);
    const file = join(edited, 'conformance-shard-2-of-2.json');
    const record = JSON.parse(readFileSync(file, 'utf8')) as ShardRecord;
    const forged = 'AB:'.repeat(31) + 'AB';
    record.tls = (record.tls ?? []).map((tls) => ({
      ...tls,
      fingerprint256: forged,
      issuer: "O=Let's Encrypt",
    }));
    record.target = { ...record.target, baseUrl: 'https://api.acme.example/v1' };
    writeFileSync(file, JSON.stringify(record));
    const merged = await merge(edited, join(keys, 'vendor'));
    assert.match(
      merged.output,
      /Warning: shard 2\/2's record names certificates .* that are not those its set-up saw/,
    );
    assert.match(
      merged.output,
      /Warning: shard 2\/2's record names the base URL https:\/\/api\.acme\.example\/v1, but none of its exchanges went/,
    );
    const report = JSON.parse(
      readFileSync(join(merged.reports, 'conformance.json'), 'utf8'),
    ) as ConformanceReport;
    assert.ok(
      !(report.tls ?? []).some((tls) => tls.fingerprint256 === forged),
      'the certificates are those seen',
    );
    // Every report says so too, signed or not: partial, so INCOMPLETE under strict.
    assert.equal(report.verdict, 'INCOMPLETE');
    assert.ok(
      report.scope?.partial.some((reason) =>
        reason.startsWith('The merged shards are not one run: shard 2/2'),
      ),
    );
    assert.match(merged.output, /^VERDICT: INCOMPLETE · shards disagree \(/m);
    const verified = await verifyBundleOf(merged.reports, join(keys, 'vendor.pub'));
    assert.equal(verified.code, 1, verified.output);
    assert.match(
      verified.output,
      /merges shards that are not one run: shard 2\/2's record names certificates/,
    );
  });
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

test('shards of one protocol each (every rule over one protocol only), merged: partial, saying what was not checked', async () => {
  const shards = await Promise.all(
    [
      ['h1', '1/2'],
      ['h2', '2/2'],
    ].map(([protocol = '', shard = '']) =>
      runConformance(['--protocols', protocol, '--shard', shard, '--no-bundle']),
    ),
  );
  const keys = scratchDirectory('sharding-keys-');
  writeFileSync(join(keys, 'vendor'), generateKeyPair().privatePem, { mode: 0o600 });
  const merged = await merge(gather(shards), join(keys, 'vendor'));
  const report = JSON.parse(
    readFileSync(join(merged.reports, 'conformance.json'), 'utf8'),
  ) as ConformanceReport;
  assert.deepEqual(report.scope?.protocolsChecked, [], merged.output);
  const [h1, h2] = [report.scope?.rulesChecked?.['HTTP/1.1'], report.scope?.rulesChecked?.['HTTP/2']];
  assert.equal((h1 ?? 0) + (h2 ?? 0), RULES.length, JSON.stringify(report.scope));
  const label = `HTTP/1.1 ${h1} of ${RULES.length} rules, HTTP/2 ${h2} of ${RULES.length} rules`;
  assert.match(merged.output, new RegExp(`^VERDICT: CONFORMANT · ${label} \\(`, 'm'));
  assert.match(
    readFileSync(join(merged.reports, 'bundle', 'badge.svg'), 'utf8'),
    new RegExp(`CONFORMANT · ${label}`),
  );
  assert.deepEqual(
    report.protocols?.map((protocol) => `${protocol.name} ${protocol.verdict}`),
    ['HTTP/1.1 INCOMPLETE', 'HTTP/2 INCOMPLETE'],
    'over each protocol, half the rules are not evaluated',
  );
});
