// The settings of a merged run are its shards'. The process that merges ran no rule, yet a merge
// stated its own environment's settings: a shard run with `--retries 3 --max-retries 20
// --max-list-pages 1 --request-timeout 60` merged with a shard run with none gave a signed,
// VERIFIED, strict CONFORMANT certificate saying "Playwright retries 0, up to 4 retries …, lists
// followed up to 10 pages, 10 s per exchange", without the "retries 3" label. Shards run with
// different settings are not one run; a merged report whose settings are not its shards' is
// refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { writeReports } from '../../../conformance/report/write-reports.ts';
import { scopeLabel, scopeOf, type ScopeSettings } from '../../../conformance/report/scope.ts';
import {
  mergedSettingsDifferences,
  optionsOfSettings,
  settingsOfShards,
  shardDisagreements,
  shardsWithoutRecord,
  type ShardRecord,
} from '../../../conformance/report/shard-records.ts';
import { writeBundle } from '../../../conformance/attestation/bundle.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { tlsEvidence } from '../../support/tls-evidence.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const vendor = generateKeyPairSync('ed25519');
const certificate = tlsEvidence(['HTTP/1.1', 'HTTP/2']);

const defaults: ScopeSettings = {
  retries: 0,
  repeatEach: 1,
  maxRetries: 4,
  retryBudgetSeconds: 60,
  requestTimeoutSeconds: 10,
  maxListPages: 10,
  maxListRecords: 1000,
};
const lenient: ScopeSettings = {
  ...defaults,
  retries: 3,
  maxRetries: 20,
  requestTimeoutSeconds: 60,
  maxListPages: 1,
};

/** A shard's record as its run leaves it beside its blob, with what the merge saw of it. */
function record(shard: string, settings: ScopeSettings): ShardRecord {
  return {
    shard,
    target: { name: 'acme production', mode: 'file', baseUrl: 'https://api.acme.example/v1' },
    suite: { name: 'tenant-auth-conformance', version: '0.1.0' },
    tls: [certificate],
    scope: scopeOf({
      protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
      tls: [certificate],
      rulesSelected: 24,
      rulesInCatalog: RULES.length,
      settings,
    }),
    startedAt: '2026-11-27T10:00:00.000Z',
    seen: {
      origins: ['https://api.acme.example'],
      tls: [{ host: certificate.host, fingerprint256: certificate.fingerprint256 }],
    },
  };
}

/** The merged report of `shards`, stating `settings` (the merge's own, before, or the shards'). */
function merged(shards: ShardRecord[], settings: ScopeSettings): ConformanceReport {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  return buildReport(outcomes, {
    target: shards[0]?.target ?? { name: 'none', mode: 'file', baseUrl: '' },
    profile: 'strict',
    startedAt: new Date('2026-11-27T10:00:00Z'),
    durationMs: 20_000,
    options: { failOnIncomplete: false, ...optionsOfSettings(settings), selectedRules: RULES.length },
    tls: [certificate],
    scope: scopeOf({
      protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
      tls: [certificate],
      rulesSelected: RULES.length,
      rulesInCatalog: RULES.length,
      shards: shards.map((shard) => shard.shard),
      settings,
      shardProblems: shardDisagreements(shards),
    }),
    shards,
  });
}

async function problemsOf(built: ConformanceReport): Promise<string[]> {
  const reports = scratchDirectory('shard-settings-');
  writeReports(built, { exchanges: [] }, reports);
  const bundle = writeBundle(built, reports, vendor.privateKey).directory;
  const result = await verifyBundle(bundle, { trustedKeys: [vendor.publicKey] });
  assert.equal(result.signature.state, 'trusted');
  return result.problems;
}

test('shards run with other settings are not one run: the merge is partial, and verify refuses it', async () => {
  const shards = [record('1/2', defaults), record('2/2', lenient)];
  assert.deepEqual(shardDisagreements(shards), [
    'shard 2/2 ran with other settings than shard 1/2 (maxListPages 1, maxListRecords 1000, maxRetries 20, repeatEach 1, requestTimeoutSeconds 60, retries 3, retryBudgetSeconds 60, not maxListPages 10, maxListRecords 1000, maxRetries 4, repeatEach 1, requestTimeoutSeconds 10, retries 0, retryBudgetSeconds 60).',
  ]);
  const built = merged(shards, defaults);
  assert.equal(built.verdict, 'INCOMPLETE');
  assert.match(
    built.scope?.partial.join(' ') ?? '',
    /The merged shards are not one run: shard 2\/2 ran with other settings/,
  );
  const problems = await problemsOf(built);
  assert.ok(
    problems.some((problem) =>
      problem.startsWith(
        'conformance.json merges shards that are not one run: shard 2/2 ran with other settings',
      ),
    ),
    problems.join('\n'),
  );
  // Shards of one run's settings agree, and records of an older kit (no settings) are not compared.
  assert.deepEqual(shardDisagreements([record('1/2', lenient), record('2/2', lenient)]), []);
  const older = { ...record('2/2', lenient), scope: undefined };
  assert.deepEqual(shardDisagreements([record('1/2', defaults), older]), []);
});

test("a merged report states its shards' settings, or verify refuses it", async () => {
  const shards = [record('1/2', lenient), record('2/2', lenient)];
  assert.deepEqual(settingsOfShards(shards), lenient);
  // What a merge wrote before: its own environment's settings, over shards run with retries.
  const stated = merged(shards, defaults);
  assert.equal(stated.verdict, 'CONFORMANT');
  assert.deepEqual(mergedSettingsDifferences(stated.scope?.settings, shards), [
    'the merged scope says maxListPages 10, but the shards ran with 1.',
    'the merged scope says maxRetries 4, but the shards ran with 20.',
    'the merged scope says requestTimeoutSeconds 10, but the shards ran with 60.',
    'the merged scope says retries 0, but the shards ran with 3.',
  ]);
  const problems = await problemsOf(stated);
  assert.deepEqual(
    problems.filter((problem) => problem.includes("settings are not its shards'")),
    [
      "conformance.json is a merge whose settings are not its shards': the merged scope says maxListPages 10, but the shards ran with 1.",
      "conformance.json is a merge whose settings are not its shards': the merged scope says maxRetries 4, but the shards ran with 20.",
      "conformance.json is a merge whose settings are not its shards': the merged scope says requestTimeoutSeconds 10, but the shards ran with 60.",
      "conformance.json is a merge whose settings are not its shards': the merged scope says retries 0, but the shards ran with 3.",
    ],
  );
  // The shards' own settings: verified, and labelled with the retries.
  const honest = merged(shards, lenient);
  assert.deepEqual(await problemsOf(honest), []);
  assert.equal(honest.options?.retries, 3);
  assert.equal(honest.options?.maxListPages, 1);
});

// A record is a file beside a blob: left out, its shard's results were merged all the same, and
// the merge (exit 3, "no record of it was gathered") still signed a bundle that VERIFIED as strict
// CONFORMANT, naming shard 1/2 alone — the other shard's settings (--retries 3) unseen.
test('a merge without the record of one of its shards is partial ("shards missing"), and verify recomputes it', async () => {
  assert.deepEqual(shardsWithoutRecord([record('1/2', defaults)]), ['2/2']);
  assert.deepEqual(shardsWithoutRecord([record('1/3', defaults), record('3/3', defaults)]), ['2/3']);
  assert.deepEqual(shardsWithoutRecord([record('1/2', defaults), record('2/2', defaults)]), []);
  assert.deepEqual(shardsWithoutRecord([record('1/99999', defaults)]), ['?/99999']);
  const shards = [record('1/2', defaults)];
  const scope = scopeOf({
    protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
    tls: [certificate],
    rulesSelected: RULES.length,
    rulesInCatalog: RULES.length,
    shards: ['1/2'],
    settings: defaults,
    shardsWithoutRecord: shardsWithoutRecord(shards),
  });
  assert.deepEqual(scope.partial, [
    "The merge holds no record of shard 2/2: what it ran under (target, settings, certificates) is not known, and its results may be in it all the same. Gather every shard's blob/ folder whole.",
  ]);
  assert.equal(scopeLabel({ scope }), 'shards missing');
  // The report such a merge signed before: complete, CONFORMANT.
  const before = merged(shards, defaults);
  assert.equal(before.verdict, 'CONFORMANT');
  assert.deepEqual(before.scope?.partial, []);
  const problems = await problemsOf(before);
  assert.ok(
    problems.some((problem) =>
      problem.startsWith(
        'conformance.json\'s scope does not follow from its protocols and hosts: it should say ["The merge holds no record of shard 2/2',
      ),
    ),
    problems.join('\n'),
  );
});
