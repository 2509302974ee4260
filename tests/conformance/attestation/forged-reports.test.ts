// A report that disagrees with itself is refused by `verify`, naming what disagrees, even when the
// forger re-seals the bundle (fixes every digest) and re-signs it with the vendor's own key: the
// verdict is recomputed from the rules, per protocol too, the counts, renderings, badge, scope,
// settings and catalog are compared with the rules, and a merged run's shards with each other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { writeReports, REPORT_FILES } from '../../../conformance/report/write-reports.ts';
import { scopeOf } from '../../../conformance/report/scope.ts';
import { catalogDigestOf } from '../../../conformance/report/provenance.ts';
import { renderBadge } from '../../../conformance/attestation/badge.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { tlsEvidence as tls } from '../../support/tls-evidence.ts';
import {
  vendor,
  report,
  bundleOf,
  mustRules,
  read,
  statementOf,
  reseal,
  rerender,
  verifyCli,
  publicKeyFile,
} from '../../support/forger.ts';
import { scratchDirectory } from '../../support/scratch.ts';

// Consistency, with the vendor's own key re-signing.

test('a CONFORMANT badge beside a NOT CONFORMANT report is refused, naming the badge', async () => {
  const directory = bundleOf(report({ failing: mustRules.slice(0, 1) }));
  writeFileSync(join(directory, 'badge.svg'), renderBadge(report()));
  reseal(directory, vendor.privateKey);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems, [
    'badge.svg is not the badge of statement.json: it should read "tenant-auth conformance: NOT CONFORMANT · default · 2026-11-25 · revoked key: vendor\'s word", it reads "tenant-auth conformance: CONFORMANT · default · 2026-11-25 · revoked key: vendor\'s word".',
  ]);
});

test('a statement and report saying CONFORMANT over three failed rules are refused: the verdict is recomputed from the rules', async () => {
  const failing = report({ failing: mustRules.slice(0, 3) });
  assert.equal(failing.summary.fail, 3);
  const forged: ConformanceReport = { ...failing, verdict: 'CONFORMANT' };
  const directory = bundleOf(forged);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems, [
    'conformance.json says CONFORMANT, but its rules come to NOT CONFORMANT (profile default).',
  ]);
});

test('counts that do not match the rules are refused', async () => {
  const built = report({ failing: mustRules.slice(0, 1) });
  const directory = bundleOf({
    ...built,
    summary: { ...built.summary, fail: 0, pass: built.summary.pass + 1 },
  });
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.ok(
    problems.includes("conformance.json's summary counts 0 fail, but its rules hold 1."),
    problems.join('\n'),
  );
});

// Every rendering says what conformance.json says.

test('a re-signed bundle whose HTML, Markdown and JUnit come from another run is refused, each named', async () => {
  const directory = bundleOf(report({ failing: [mustRules[0] ?? ''], profile: 'strict' }));
  // The renderings of a CONFORMANT run beside the NOT CONFORMANT report and statement.
  const other = scratchDirectory('forgery-other-');
  writeReports(report({ profile: 'strict' }), { exchanges: [] }, other);
  for (const name of [REPORT_FILES.html, REPORT_FILES.markdown, REPORT_FILES.junit])
    writeFileSync(join(directory, name), readFileSync(join(other, name)));
  reseal(directory, vendor.privateKey);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(
    problems.map(
      (problem) => /^(\S+) is not the rendering of conformance\.json \(line \d+ reads/.exec(problem)?.[1],
    ),
    ['conformance.md', 'junit.xml', 'conformance.html'],
    problems.join('\n'),
  );
});

test('a protocol said CONFORMANT while its rules fail over it, re-sealed and re-signed, is refused', async () => {
  const directory = bundleOf(report());
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  const rule = forged.rules.find((candidate) => candidate.id === mustRules[0]);
  assert.ok(rule);
  rule.protocols = { 'HTTP/1.1': 'pass', 'HTTP/2': 'fail' };
  forged.protocols = [
    { name: 'HTTP/1.1', verdict: 'CONFORMANT' },
    { name: 'HTTP/2', verdict: 'CONFORMANT' },
  ];
  rerender(directory, forged);
  const statement = statementOf(directory);
  statement.predicate.protocols = forged.protocols;
  reseal(directory, vendor.privateKey, statement);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.ok(
    problems.includes(
      'conformance.json says HTTP/2 CONFORMANT, but its rules over HTTP/2 come to NOT CONFORMANT.',
    ),
    problems.join('\n'),
  );
  assert.ok(
    problems.includes(`conformance.json says ${rule.id} pass, but over one protocol it is fail.`),
    problems.join('\n'),
  );
});

test("a scope whose settings were edited away from the report's options (a list bound raised), re-signed, is refused", async () => {
  const built = report();
  const settings = {
    retries: 0,
    repeatEach: 1,
    maxRetries: 4,
    retryBudgetSeconds: 60,
    requestTimeoutSeconds: 10,
    maxListPages: 1,
    maxListRecords: 1000,
  };
  const honest: ConformanceReport = {
    ...built,
    options: {
      ...(built.options ?? {
        failOnIncomplete: false,
        requestTimeoutSeconds: 10,
        selectedRules: RULES.length,
      }),
      failOnIncomplete: false,
      maxListPages: 1,
      maxRetries: 4,
    },
    ...(built.scope ? { scope: { ...built.scope, settings } } : {}),
  };
  const directory = bundleOf(honest);
  assert.deepEqual((await verifyBundle(directory, { trustedKeys: [vendor.publicKey] })).problems, []);
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  if (forged.scope?.settings) forged.scope.settings.maxListPages = 10;
  rerender(directory, forged);
  const statement = statementOf(directory);
  statement.predicate.scope = forged.scope;
  reseal(directory, vendor.privateKey, statement);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems, [
    "conformance.json's scope says maxListPages 10, its options 1: they are one run's settings.",
  ]);
});

test('a failing MUST rule relabelled ADVISORY (verdict, counts, renderings, badge made again), re-signed, is refused; with the catalog digest forged too, verify warns', async (t) => {
  const failing = mustRules[0] ?? '';
  const directory = bundleOf(report({ failing: [failing] }));
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  const rule = forged.rules.find((candidate) => candidate.id === failing);
  assert.ok(rule);
  rule.level = 'ADVISORY';
  rule.verdict = 'warning';
  forged.verdict = 'CONFORMANT';
  forged.summary = { ...forged.summary, fail: forged.summary.fail - 1, warning: forged.summary.warning + 1 };
  const resign = (): void => {
    rerender(directory, forged);
    writeFileSync(join(directory, 'badge.svg'), renderBadge(forged));
    const statement = statementOf(directory);
    statement.predicate = { ...statement.predicate, verdict: forged.verdict, summary: forged.summary };
    if (forged.catalog) statement.predicate.catalog = forged.catalog;
    reseal(directory, vendor.privateKey, statement);
  };
  resign();
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(
    problems.map((problem) => problem.replace(/sha256 [0-9a-f]{64}/, 'sha256 …')),
    [
      `conformance.json lists ${RULES.length} rules whose ids, levels and statements are not the catalog it names (sha256 …, ${RULES.length} rules): a rule was left out, added or changed.`,
    ],
  );
  // A forger who also rewrites the catalog's digest is consistent with itself, but not with this kit.
  forged.catalog = catalogDigestOf(forged.rules);
  resign();
  const verified = await verifyCli(t, [directory, '--public-key', publicKeyFile(vendor.publicKey)]);
  assert.equal(verified.code, 0, verified.err);
  assert.match(
    verified.out,
    /^ {2}! The report's rule catalog \(sha256 [0-9a-f]{64}, \d+ rules, kit [^)]+\) is not this kit's/m,
  );
});

test('a run of some rules (the ADVISORY ones left out) whose scope and options claim every rule, re-signed, is refused', async () => {
  const advisory = new Set<string>(RULES.filter((rule) => rule.level === 'ADVISORY').map((rule) => rule.id));
  const outcomes = new Map<string, TestOutcome[]>(
    RULES.filter((rule) => !advisory.has(rule.id)).map((rule) => [rule.id, [{ status: 'passed' }]]),
  );
  const certificate = tls(['HTTP/1.1', 'HTTP/2']);
  // Left out, ADVISORY rules do not change the verdict: only the scope says the run was partial.
  const forged = buildReport(outcomes, {
    target: { name: 'acme staging', mode: 'file', baseUrl: 'https://api.acme.example/v1' },
    profile: 'strict',
    startedAt: new Date('2026-11-25T10:00:00Z'),
    durationMs: 61_000,
    options: {
      failOnIncomplete: false,
      requestTimeoutSeconds: 10,
      selectedRules: RULES.length - advisory.size,
    },
    tls: [certificate],
    scope: scopeOf({
      protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
      tls: [certificate],
      rulesSelected: RULES.length,
      rulesInCatalog: RULES.length,
    }),
  });
  assert.equal(forged.verdict, 'CONFORMANT');
  const { problems } = await verifyBundle(bundleOf(forged), { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(
    problems.map((problem) => problem.replace(/ \(.*\)\.$/, '.')),
    [
      `conformance.json's scope says the run is complete, but ${advisory.size} of its rules were not run in its selection.`,
      `conformance.json's scope says ${RULES.length} rules were selected, its options ${RULES.length - advisory.size}: they are one run's.`,
    ],
  );
});

// A merged run is one run, or it is refused.

test('a merged bundle whose shards disagree on target, kit or catalog is refused, naming the shards', async () => {
  const built = report();
  const record = {
    shard: '1/2',
    target: built.target,
    suite: built.suite,
    ...(built.catalog ? { catalog: built.catalog } : {}),
    startedAt: built.startedAt,
  };
  const agreeing = bundleOf({ ...built, shards: [record, { ...record, shard: '2/2' }] });
  assert.deepEqual((await verifyBundle(agreeing, { trustedKeys: [vendor.publicKey] })).problems, []);
  const other = {
    ...record,
    shard: '2/2',
    target: { ...built.target, baseUrl: 'https://other.example/v1' },
    catalog: { sha256: 'f'.repeat(64), rules: RULES.length },
  };
  const { problems: all } = await verifyBundle(bundleOf({ ...built, shards: [record, other] }), {
    trustedKeys: [vendor.publicKey],
  });
  // The scope of such a merge must say it is partial (the merge's own reporter writes so): this
  // forged one does not, which is named too.
  assert.ok(
    all.some((problem) =>
      /^conformance\.json's scope does not follow .*The merged shards are not one run: shard 2\/2/.test(
        problem,
      ),
    ),
    all.join('\n'),
  );
  const problems = all.filter((problem) => !problem.includes("'s scope does not follow"));
  assert.equal(problems.length, 2, problems.join('\n'));
  assert.match(
    problems[0] ?? '',
    /^conformance\.json merges shards that are not one run: shard 2\/2 ran a different target than shard 1\/2/,
  );
  assert.match(
    problems[1] ?? '',
    /^conformance\.json merges shards that are not one run: shard 2\/2 ran a different catalog than shard 1\/2 \(f{64}, not [0-9a-f]{64}\)\.$/,
  );
});
