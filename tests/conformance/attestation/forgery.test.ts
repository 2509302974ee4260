// What a certificate must withstand, row by row: each forgery an independent review tried is
// refused by `verify`, naming what disagrees — even when the forger re-seals the bundle (fixes
// every digest) and re-signs it with the vendor's own key, since the checks compare the files with
// each other, not only with their digests. And a partial run says it is partial in every place a
// verdict is shown. The bundles are built in process from reports made by the code a run uses;
// tests/attestation/certify.test.ts does the same through real runs.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  verify,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceReport, TlsEvidence } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { writeReports, REPORT_FILES } from '../../../conformance/report/write-reports.ts';
import { scopeOf } from '../../../conformance/report/scope.ts';
import { catalogDigestOf } from '../../../conformance/report/provenance.ts';
import { paint, summary } from '../../../conformance/report/console.ts';
import { renderMarkdown } from '../../../conformance/report/markdown.ts';
import { renderHtml } from '../../../conformance/report/html.ts';
import { renderJunit } from '../../../conformance/report/junit.ts';
import { writeBundle } from '../../../conformance/attestation/bundle.ts';
import { renderBadge } from '../../../conformance/attestation/badge.ts';
import { signEnvelope } from '../../../conformance/attestation/dsse.ts';
import { renderManifest } from '../../../conformance/attestation/manifest.ts';
import { publicKeyPem } from '../../../conformance/attestation/signing-key.ts';
import { PREDICATE_TYPE, type Statement } from '../../../conformance/attestation/statement.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { main as verifyCommand } from '../../../cli/commands/verify.ts';
import { tlsEvidence as tls } from '../../support/tls-evidence.ts';

const vendor = generateKeyPairSync('ed25519');
const forger = generateKeyPairSync('ed25519');
const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

interface ReportShape {
  /** Rules that fail (MUST rules fail the run). */
  failing?: string[];
  checked?: string[];
  offered?: string[];
  profile?: 'default' | 'strict';
  target?: ConformanceReport['target'];
  certificate?: TlsEvidence;
}

/** A report as a run makes it: every rule passed but `failing`, over `checked` of `offered`. */
function report(shape: ReportShape = {}): ConformanceReport {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  for (const id of shape.failing ?? [])
    outcomes.set(id, [{ status: 'failed', failure: { message: 'served', evidence: [] } }]);
  const certificate = shape.certificate ?? tls(shape.offered ?? ['HTTP/1.1', 'HTTP/2']);
  return buildReport(outcomes, {
    target: shape.target ?? { name: 'acme staging', mode: 'file', baseUrl: 'https://api.acme.example/v1' },
    profile: shape.profile ?? 'default',
    startedAt: new Date('2026-11-25T10:00:00Z'),
    durationMs: 61_000,
    options: { failOnIncomplete: false, requestTimeoutSeconds: 10, selectedRules: RULES.length },
    tls: [certificate],
    scope: scopeOf({
      protocolsChecked: shape.checked ?? ['HTTP/1.1', 'HTTP/2'],
      tls: [certificate],
      rulesSelected: RULES.length,
      rulesInCatalog: RULES.length,
    }),
  });
}

function bundleOf(built: ConformanceReport, key: KeyObject | undefined = vendor.privateKey): string {
  const reports = mkdtempSync(join(tmpdir(), 'forgery-test-'));
  writeReports(built, { exchanges: [] }, reports);
  return writeBundle(built, reports, key).directory;
}

const mustRules = RULES.filter((rule) => rule.level === 'MUST').map((rule) => rule.id);
const read = (directory: string, name: string): string => readFileSync(join(directory, name), 'utf8');
const statementOf = (directory: string): Statement =>
  JSON.parse(read(directory, 'statement.json')) as Statement;

/**
 * What a forger with the kit's own tools does after changing files: recompute every subject's
 * digest (or keep `subjects` as given), rewrite SHA256SUMS, and sign again with `key` (or leave
 * the bundle unsigned).
 */
function reseal(
  directory: string,
  key: KeyObject | undefined,
  statement: Statement = statementOf(directory),
): void {
  const subjects = statement.subject.map((subject) => ({
    ...subject,
    digest: { sha256: sha256(readFileSync(join(directory, subject.name))) },
  }));
  const bytes = Buffer.from(`${JSON.stringify({ ...statement, subject: subjects }, null, 2)}\n`);
  writeStatement(directory, bytes, key);
}

function writeStatement(directory: string, bytes: Buffer, key: KeyObject | undefined): void {
  writeFileSync(join(directory, 'statement.json'), bytes);
  rmSync(join(directory, 'statement.dsse.json'), { force: true });
  rmSync(join(directory, 'signer.pub.pem'), { force: true });
  if (key) {
    writeFileSync(join(directory, 'signer.pub.pem'), publicKeyPem(key));
    writeFileSync(join(directory, 'statement.dsse.json'), JSON.stringify(signEnvelope(bytes, key), null, 2));
  }
  const names = [
    ...REPORT_FILES_LIST,
    'badge.svg',
    'statement.json',
    ...(key ? ['signer.pub.pem', 'statement.dsse.json'] : []),
  ];
  writeFileSync(
    join(directory, 'SHA256SUMS'),
    renderManifest(new Map(names.map((name) => [name, sha256(readFileSync(join(directory, name)))]))),
  );
}

const REPORT_FILES_LIST = Object.values(REPORT_FILES);

/** What a forger with the kit's own renderers does: every report of the bundle rendered from `forged`. */
function rerender(directory: string, forged: ConformanceReport): void {
  writeReports(forged, { exchanges: [] }, directory);
}

/** `verify DIR ARGS…` in process: its exit code and what it printed. */
async function verifyCli(
  t: TestContext,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  t.mock.method(console, 'log', (text: string) => out.push(text));
  t.mock.method(console, 'error', (text: string) => err.push(text));
  const code = await verifyCommand(args);
  t.mock.restoreAll();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function publicKeyFile(key: KeyObject): string {
  const file = join(mkdtempSync(join(tmpdir(), 'forgery-key-')), 'signer.pub');
  writeFileSync(file, publicKeyPem(key));
  return file;
}

// Row 1: a run over HTTP/1.1 alone of a target that offers HTTP/2 is labelled partial everywhere.

/**
 * `built` shows `label` as its verdict in the console's verdict line, every report, the badge and
 * `verify`'s first line (its bundle signed by the vendor); the console's scope line is returned.
 */
async function assertLabelledEverywhere(
  t: TestContext,
  built: ConformanceReport,
  label: string,
): Promise<string> {
  const console = summary(built, {
    selected: new Set(RULES.map((rule) => rule.id)),
    reportFiles: [],
    painter: paint(false),
  });
  assert.match(console, new RegExp(`^VERDICT: ${label} \\(acme staging, profile ${built.profile}\\)$`, 'm'));
  assert.ok(renderMarkdown(built).includes(`**Verdict: ${label}**`));
  assert.ok(renderHtml(built).includes(label));
  assert.ok(renderJunit(built).includes(label));
  assert.match(
    renderBadge(built),
    new RegExp(`<title>tenant-auth conformance: ${label} · ${built.profile} · 2026-11-25</title>`),
  );
  const directory = bundleOf(built);
  assert.equal(statementOf(directory).predicate.verdict, built.verdict);
  assert.equal(statementOf(directory).predicate.scope?.protocolsChecked.join(), 'HTTP/1.1');
  const result = await verifyCli(t, [directory, '--public-key', publicKeyFile(vendor.publicKey)]);
  assert.equal(result.code, 0, result.err);
  assert.match(result.out.split('\n')[0] ?? '', new RegExp(`^VERIFIED: ${label} — signed by sha256:`));
  return /^Scope: .*$/m.exec(console)?.[0] ?? '';
}

test('an HTTP/1.1-only run of a target that offers HTTP/2 is "CONFORMANT · HTTP/1.1 only" in the console, every report, the badge and verify', async (t) => {
  const partial = report({ checked: ['HTTP/1.1'] });
  assert.equal(partial.verdict, 'CONFORMANT');
  assert.deepEqual(partial.scope?.protocolsOffered, ['HTTP/1.1', 'HTTP/2']);
  assert.match(
    partial.scope?.partial[0] ?? '',
    /^HTTP\/2 was not checked, but the target offers it \(api\.acme\.example:443\)/,
  );
  const scopeLine = await assertLabelledEverywhere(t, partial, 'CONFORMANT · HTTP/1.1 only');
  assert.match(scopeLine, /^Scope: PARTIAL: HTTP\/2 was not checked/);
  assert.doesNotMatch(scopeLine, /Under --profile strict/, 'the strict note is for strict runs');
  // A complete run carries no label.
  assert.match(
    renderBadge(report()),
    /<title>tenant-auth conformance: CONFORMANT · default · 2026-11-25<\/title>/,
  );
});

test('under --profile strict a partial run is "INCOMPLETE · HTTP/1.1 only" in the console, every report, the badge and verify; a target offering HTTP/1.1 alone is complete over it', async (t) => {
  const strict = report({ checked: ['HTTP/1.1'], profile: 'strict' });
  assert.equal(strict.verdict, 'INCOMPLETE');
  const scopeLine = await assertLabelledEverywhere(t, strict, 'INCOMPLETE · HTTP/1.1 only');
  assert.match(
    scopeLine,
    /^Scope: PARTIAL: HTTP\/2 was not checked.* Under --profile strict a partial run is never CONFORMANT/,
  );
  for (const rendered of [renderMarkdown(strict), renderHtml(strict), renderJunit(strict)])
    assert.ok(!rendered.includes('CONFORMANT · HTTP/1.1 only'));
  const complete = report({ checked: ['HTTP/1.1'], offered: ['HTTP/1.1'], profile: 'strict' });
  assert.deepEqual(complete.scope?.partial, []);
  assert.equal(complete.verdict, 'CONFORMANT');
  assert.match(renderBadge(complete), /CONFORMANT · strict/);
});

test('a partial strict run relabelled CONFORMANT (report, statement and badge), re-sealed and re-signed by the vendor, is refused', async () => {
  const directory = bundleOf(report({ checked: ['HTTP/1.1'], profile: 'strict' }));
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  forged.verdict = 'CONFORMANT';
  rerender(directory, forged);
  const statement = statementOf(directory);
  statement.predicate.verdict = 'CONFORMANT';
  writeFileSync(join(directory, 'badge.svg'), renderBadge(forged));
  reseal(directory, vendor.privateKey, statement);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems, [
    'conformance.json says CONFORMANT, but its rules come to INCOMPLETE (profile strict).',
  ]);
});

test('a partial run whose scope was rewritten to look complete, re-sealed and re-signed by the vendor, is refused', async () => {
  const directory = bundleOf(report({ checked: ['HTTP/1.1'] }));
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  if (forged.scope) forged.scope.partial = [];
  rerender(directory, forged);
  const statement = statementOf(directory);
  statement.predicate.scope = forged.scope;
  writeFileSync(join(directory, 'badge.svg'), renderBadge(forged));
  reseal(directory, vendor.privateKey, statement);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems.length, 1, problems.join('\n'));
  assert.match(
    problems[0] ?? '',
    /^conformance\.json's scope does not follow from its protocols and hosts: it should say \["HTTP\/2 was not checked/,
  );
});

// Row 2: trust is not integrity.

test('a report edited and re-signed with another key (signer.pub.pem replaced): exit 4, "NOT TRUSTED" first, naming the key', async (t) => {
  const directory = bundleOf(report());
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  forged.target.name = 'acme production';
  rerender(directory, forged);
  const statement = statementOf(directory);
  statement.predicate.target.name = 'acme production';
  writeFileSync(join(directory, 'badge.svg'), renderBadge(forged));
  reseal(directory, forger.privateKey, statement);
  const bare = await verifyCli(t, [directory]);
  assert.equal(bare.code, 4, bare.err);
  // The trust word alone first: a script looking for CONFORMANT there does not read a pass.
  const [first, second, third] = bare.out.split('\n');
  assert.equal(first, 'NOT TRUSTED');
  assert.match(second ?? '', /^ {2}intact, but signed by sha256:[0-9a-f]{64}, a key you did not give/);
  assert.match(third ?? '', /^ {2}What it claims, vouched for by no key you gave: CONFORMANT$/);
  const withKey = await verifyCli(t, [directory, '--public-key', publicKeyFile(vendor.publicKey)]);
  assert.equal(withKey.code, 4);
  assert.ok(withKey.out.includes('not by a key you gave'), withKey.out);
});

test('a bundle stripped of its signature and re-sealed: exit 4, "NOT TRUSTED … not signed" first', async (t) => {
  const directory = bundleOf(report());
  reseal(directory, undefined);
  for (const args of [[directory], [directory, '--public-key', publicKeyFile(vendor.publicKey)]]) {
    const result = await verifyCli(t, args);
    assert.equal(result.code, 4, result.err);
    assert.deepEqual(result.out.split('\n').slice(0, 2), [
      'NOT TRUSTED',
      '  intact, but not signed: anyone could have written it.',
    ]);
  }
});

test('a file of trusted keys: exit 0 when one of them signed', async (t) => {
  const directory = bundleOf(report());
  const file = join(mkdtempSync(join(tmpdir(), 'trusted-')), 'trusted.pem');
  writeFileSync(
    file,
    `# a stranger\n${publicKeyPem(forger.publicKey)}# the vendor\n${publicKeyPem(vendor.publicKey)}`,
  );
  const result = await verifyCli(t, [directory, '--trusted-keys', file]);
  assert.equal(result.code, 0, result.err);
  assert.match(result.out, /^VERIFIED: CONFORMANT — signed by/);
});

// Row 3: consistency, with the vendor's own key re-signing.

test('a CONFORMANT badge beside a NOT CONFORMANT report is refused, naming the badge', async () => {
  const directory = bundleOf(report({ failing: mustRules.slice(0, 1) }));
  writeFileSync(join(directory, 'badge.svg'), renderBadge(report()));
  reseal(directory, vendor.privateKey);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems, [
    'badge.svg is not the badge of statement.json: it should read "tenant-auth conformance: NOT CONFORMANT · default · 2026-11-25", it reads "tenant-auth conformance: CONFORMANT · default · 2026-11-25".',
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

test('a statement naming conformance.json twice, the first with a wrong digest, is refused', async () => {
  const directory = bundleOf(report());
  const statement = statementOf(directory);
  const real = statement.subject.find((subject) => subject.name === 'conformance.json');
  assert.ok(real);
  const bytes = Buffer.from(
    `${JSON.stringify({ ...statement, subject: [{ name: 'conformance.json', digest: { sha256: '0'.repeat(64) } }, ...statement.subject] }, null, 2)}\n`,
  );
  writeStatement(directory, bytes, vendor.privateKey);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.ok(
    problems.includes('statement.json names conformance.json twice: each subject must be named once.'),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((problem) =>
      /^statement\.json does not match conformance\.json: it gives SHA-256 0{64}/.test(problem),
    ),
  );
});

// The bundle is exactly its signed files; every rendering says what conformance.json says.

test('a file added to a signed bundle and appended to the unsigned SHA256SUMS is refused unread, by its name', async () => {
  const directory = bundleOf(report());
  writeFileSync(
    join(directory, 'index.html'),
    '<meta http-equiv="refresh" content="0; url=https://example.test">',
  );
  const sums = read(directory, 'SHA256SUMS');
  writeFileSync(
    join(directory, 'SHA256SUMS'),
    `${sums}${sha256(readFileSync(join(directory, 'index.html')))}  index.html\n`,
  );
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems.length, 1, problems.join('\n'));
  assert.match(
    problems[0] ?? '',
    /^index\.html is not a file of a bundle \(only conformance\.json, .*\): refused unread, though SHA256SUMS lists it\.$/,
  );
});

test('a re-signed bundle whose HTML, Markdown and JUnit come from another run is refused, each named', async () => {
  const directory = bundleOf(report({ failing: [mustRules[0] ?? ''], profile: 'strict' }));
  // The renderings of a CONFORMANT run beside the NOT CONFORMANT report and statement.
  const other = mkdtempSync(join(tmpdir(), 'forgery-other-'));
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

test('a statement that names "verdict" twice, signed, is refused: a reader may keep either', async () => {
  const directory = bundleOf(report({ failing: [mustRules[0] ?? ''] }));
  const text = read(directory, 'statement.json');
  // The kit's JSON.parse keeps the last "verdict"; another reader keeps the first.
  const twice = text.replace(
    '"verdict": "NOT CONFORMANT",',
    '"verdict": "CONFORMANT",\n    "verdict": "NOT CONFORMANT",',
  );
  assert.notEqual(twice, text);
  writeStatement(directory, Buffer.from(twice), vendor.privateKey);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.ok(
    problems.includes(
      'statement.json names $.predicate.verdict twice in one object: a reader may keep either value (refused).',
    ),
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

test('base64 with junk after the payload or the signature is refused', async () => {
  for (const field of ['payload', 'sig'] as const) {
    const directory = bundleOf(report());
    const path = join(directory, 'statement.dsse.json');
    const envelope = JSON.parse(read(directory, 'statement.dsse.json')) as {
      payload: string;
      signatures: { sig: string }[];
    };
    if (field === 'payload') envelope.payload += 'QUJD';
    else if (envelope.signatures[0]) envelope.signatures[0].sig += '!!junk';
    writeFileSync(path, JSON.stringify(envelope));
    const manifest = read(directory, 'SHA256SUMS').replace(
      /^[0-9a-f]{64}(?= {2}statement\.dsse\.json$)/m,
      sha256(readFileSync(path)),
    );
    writeFileSync(join(directory, 'SHA256SUMS'), manifest);
    const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
    assert.deepEqual(
      problems,
      [
        `statement.dsse.json: ${field === 'payload' ? 'the payload' : 'signature 1'} is not canonical base64 (something is written after the encoded bytes, or they are not base64 at all).`,
      ],
      field,
    );
  }
});

test('a statement that does not match its JSON Schema, or of another predicate type, is refused, naming it', async () => {
  const directory = bundleOf(report());
  const statement = statementOf(directory);
  writeStatement(
    directory,
    Buffer.from(JSON.stringify({ ...statement, predicate: { ...statement.predicate, verdict: 'GREAT' } })),
    vendor.privateKey,
  );
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.match(
    problems.join('\n'),
    /^statement\.json does not match schemas\/verdict-statement\.schema\.json: \$\.predicate\.verdict/m,
  );
  const old = bundleOf(report());
  writeStatement(
    old,
    Buffer.from(
      JSON.stringify({
        ...statementOf(old),
        predicateType: 'https://conformance.invalid/tenant-auth-conformance/verdict/v1',
      }),
    ),
    vendor.privateKey,
  );
  assert.match(
    (await verifyBundle(old, { trustedKeys: [vendor.publicKey] })).problems.join('\n'),
    new RegExp(
      `predicate type https://conformance\\.invalid/tenant-auth-conformance/verdict/v1; this verify reads ${PREDICATE_TYPE}`,
    ),
  );
});

// Row 4: what is not listed is never read; what is listed is read within a bound.

test('an unlisted 1.5 GB file and an unlisted pipe are refused unread; a listed file over the bound is refused unread', async () => {
  const directory = bundleOf(report());
  const huge = join(directory, 'exchanges-full.har');
  writeFileSync(huge, '');
  truncateSync(huge, 1.5 * 1024 ** 3); // sparse: no disk, but 1.5 GB to any reader
  // A reader of a pipe with no writer waits for ever: the test would time out if verify read it.
  execFileSync('mkfifo', [join(directory, 'pipe.har')]);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems.sort(), [
    'exchanges-full.har was added: it is not listed in SHA256SUMS (refused unread).',
    'pipe.har was added: it is not listed in SHA256SUMS (refused unread).',
  ]);
  const listed = bundleOf(report());
  truncateSync(join(listed, 'exchanges.har'), 1.5 * 1024 ** 3);
  const bounded = await verifyBundle(listed, { trustedKeys: [vendor.publicKey] });
  assert.ok(
    bounded.problems.includes(
      `exchanges.har is ${1.5 * 1024 ** 3} bytes, more than the ${1024 ** 3} a bundle's file may have (refused unread).`,
    ),
    bounded.problems.join('\n'),
  );
  const small = await verifyBundle(bundleOf(report()), { maxFileBytes: 100 });
  assert.ok(
    small.problems.some((problem) => /^conformance\.json is \d+ bytes, more than the 100/.test(problem)),
  );
});

// Row 5: what a customer needs to judge the claim.

test('a run relabelled as a production deployment shows its host map and CA file, warns, and fails --expect-base-url', async (t) => {
  const relabelled = report({
    target: {
      name: 'Acme Corp production',
      mode: 'file',
      baseUrl: 'https://api.acme-corp.example/v1',
      hosts: { '*.acme-corp.example': '127.0.0.1' },
      caFile: '/home/vendor/.certs/ca.crt',
    },
    certificate: {
      ...tls(['HTTP/1.1', 'HTTP/2'], 'api.acme-corp.example:443'),
      subject: 'CN=Reference CA',
      issuer: 'CN=Reference CA',
    },
  });
  const directory = bundleOf(relabelled);
  const key = publicKeyFile(vendor.publicKey);
  const shown = await verifyCli(t, [directory, '--public-key', key]);
  assert.equal(shown.code, 0, shown.err);
  for (const line of [
    /^Target: +Acme Corp production \(a target file\)$/m,
    /^Base URL: +https:\/\/api\.acme-corp\.example\/v1$/m,
    /^Host map: +\*\.acme-corp\.example → 127\.0\.0\.1$/m,
    /^CA file: +\/home\/vendor\/\.certs\/ca\.crt$/m,
    /^ {2}baseUrl api\.acme-corp\.example:443: SHA-256 (AB:){31}AB$/m,
    /^ {4}issuer CN=Reference CA; subject CN=Reference CA; .*offers HTTP\/1\.1, HTTP\/2$/m,
    /^ {2}! Host map: \*\.acme-corp\.example was sent to 127\.0\.0\.1, a loopback or private address/m,
    /^ {2}! Trust came from a private CA \(\/home\/vendor\/\.certs\/ca\.crt\)/m,
    /^ {2}! The certificate of api\.acme-corp\.example:443 is self-signed/m,
  ])
    assert.match(shown.out, line);
  const expected = await verifyCli(t, [
    directory,
    '--public-key',
    key,
    '--expect-base-url',
    'https://api.acme.example/v1',
  ]);
  assert.equal(expected.code, 1);
  assert.match(
    expected.err,
    /the run checked https:\/\/api\.acme-corp\.example\/v1, not the expected base URL https:\/\/api\.acme\.example\/v1\./,
  );
  const same = await verifyCli(t, [
    directory,
    '--public-key',
    key,
    '--expect-base-url',
    'https://api.acme-corp.example/v1',
  ]);
  assert.equal(same.code, 0, same.err);
});

test('a run whose plain-HTTP probes went to a closed port shows where, and warns; that place edited to the default, re-signed, is refused', async (t) => {
  const directory = bundleOf(
    report({
      target: {
        name: 'acme staging',
        mode: 'file',
        baseUrl: 'https://api.acme.example/v1',
        plainHttpBaseUrl: 'http://api.acme.example:9/v1',
      },
    }),
  );
  const key = publicKeyFile(vendor.publicKey);
  const shown = await verifyCli(t, [directory, '--public-key', key]);
  assert.equal(shown.code, 0, shown.err);
  assert.match(
    shown.out,
    /^Base URL: +https:\/\/api\.acme\.example\/v1\nPlain HTTP: +http:\/\/api\.acme\.example:9\/v1 \(where the plain-HTTP rules probed\)$/m,
  );
  assert.match(
    shown.out,
    /^ {2}! Plain HTTP was probed at http:\/\/api\.acme\.example:9\/v1, not at the base URL's host on port 80 \(http:\/\/api\.acme\.example\)/m,
  );

  // The forger makes the report say the default, to lose the warning, and re-signs.
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  forged.target.plainHttpBaseUrl = 'http://api.acme.example/v1';
  rerender(directory, forged);
  reseal(directory, vendor.privateKey);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems, ["statement.json's predicate does not match conformance.json in: target."]);
  const refused = await verifyCli(t, [directory, '--public-key', key]);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /^NOT VERIFIED: .*\n.*predicate does not match conformance\.json in: target\./m);
});

test('--check-live compares the certificate a host presents now with the bundle’s', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'live-check-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ed25519',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-days',
      '1',
      '-keyout',
      join(work, 'k.pem'),
      '-out',
      join(work, 'c.pem'),
    ],
    { stdio: 'ignore' },
  );
  const server = createServer(
    { key: readFileSync(join(work, 'k.pem')), cert: readFileSync(join(work, 'c.pem')) },
    (_request, response) => response.end(),
  );
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  t.after(() => server.close());
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const live = new X509Certificate(readFileSync(join(work, 'c.pem'))).fingerprint256;
  const host = `localhost:${port}`;
  const key = publicKeyFile(vendor.publicKey);
  // The report's base URL is the host whose certificate it records (verify checks they agree).
  const target = { name: 'acme staging', mode: 'file' as const, baseUrl: `https://${host}/v1` };
  const matching = bundleOf(
    report({ target, certificate: { ...tls(['HTTP/1.1'], host), fingerprint256: live } }),
  );
  const ok = await verifyCli(t, [matching, '--public-key', key, '--check-live']);
  assert.equal(ok.code, 0, ok.err);
  assert.match(
    ok.out,
    /^Live check: +every recorded host presents the bundle's certificate and protocols now$/m,
  );
  const other = bundleOf(report({ target, certificate: tls(['HTTP/1.1', 'HTTP/2'], host) }));
  const differs = await verifyCli(t, [other, '--public-key', key, '--check-live']);
  assert.equal(differs.code, 1);
  assert.ok(
    differs.err.includes(
      `live: ${host} presents certificate SHA-256 ${live}; the bundle's run saw ${tls([]).fingerprint256}.`,
    ),
    differs.err,
  );
  assert.ok(
    differs.err.includes(
      `live: ${host} does not offer HTTP/2 by ALPN now; the bundle's run found HTTP/1.1 and HTTP/2.`,
    ),
  );
  // A run whose host map sent a name that resolves nowhere (an .invalid name) to this server: the
  // customer's own resolution cannot reach it; --via-host-map connects where the run did.
  const mappedHost = `api.acme.invalid:${port}`;
  const mapped = bundleOf(
    report({
      certificate: { ...tls(['HTTP/1.1'], mappedHost), fingerprint256: live },
      target: {
        name: 'acme staging',
        mode: 'file',
        baseUrl: `https://${mappedHost}/v1`,
        hosts: { '*.acme.invalid': '127.0.0.1' },
      },
    }),
  );
  const unresolved = await verifyCli(t, [mapped, '--public-key', key, '--check-live']);
  assert.equal(unresolved.code, 1);
  assert.match(unresolved.err, new RegExp(`live: ${mappedHost.replace('.', '\\.')}: cannot be reached now`));
  const viaMap = await verifyCli(t, [mapped, '--public-key', key, '--check-live', '--via-host-map']);
  assert.equal(viaMap.code, 0, viaMap.err);
  assert.equal(
    (await verifyCli(t, [mapped, '--via-host-map'])).code,
    2,
    '--via-host-map alone is a usage error',
  );
});

// Row 6: a merged run is one run, or it is refused.

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

// Not our verifier: the envelope and the statement checked with node:crypto alone, as the DSSE and
// in-toto specifications read.

test('an independent DSSE / in-toto check of a signed bundle, with node:crypto alone', () => {
  const directory = bundleOf(report());
  const envelope = JSON.parse(read(directory, 'statement.dsse.json')) as {
    payloadType: string;
    payload: string;
    signatures: { keyid: string; sig: string }[];
  };
  const payload = Buffer.from(envelope.payload, 'base64');
  const type = Buffer.from(envelope.payloadType, 'utf8');
  const pae = Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `),
    type,
    Buffer.from(` ${payload.length} `),
    payload,
  ]);
  const key = createPublicKey(read(directory, 'signer.pub.pem'));
  const [signature] = envelope.signatures;
  assert.ok(signature);
  assert.equal(envelope.payloadType, 'application/vnd.in-toto+json');
  assert.ok(
    verify(null, pae, key, Buffer.from(signature.sig, 'base64')),
    'the signature covers PAE(type, payload)',
  );
  assert.equal(signature.keyid, `sha256:${sha256(key.export({ type: 'spki', format: 'der' }))}`);
  assert.ok(
    payload.equals(readFileSync(join(directory, 'statement.json'))),
    'the payload is statement.json, byte for byte',
  );
  const statement = JSON.parse(payload.toString('utf8')) as Statement;
  assert.equal(statement._type, 'https://in-toto.io/Statement/v1');
  assert.equal(statement.predicateType, 'urn:tenant-auth-conformance:verdict:v2');
  assert.equal(new Set(statement.subject.map((subject) => subject.name)).size, statement.subject.length);
  for (const subject of statement.subject)
    assert.equal(subject.digest.sha256, sha256(readFileSync(join(directory, subject.name))), subject.name);
  for (const line of read(directory, 'SHA256SUMS').trim().split('\n')) {
    const [digest, name] = line.split('  ');
    assert.equal(sha256(readFileSync(join(directory, name ?? ''))), digest, name);
  }
});
