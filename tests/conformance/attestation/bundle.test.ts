// The bundle and its verification, on a report built in process (no run): a signed bundle
// verifies; each kind of tampering — a report, the HAR, the statement, the signature, a file added
// or removed, a statement rewritten to match changed files, a signature by another key — fails
// with the file named. tests/conformance/attestation/certify.test.ts does the same through a real run and the
// command line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport, TlsEvidence } from '../../../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../../../schemas/validators.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { writeReports } from '../../../conformance/report/write-reports.ts';
import { writeBundle } from '../../../conformance/attestation/bundle.ts';
import { badgeMarkdown, renderBadge } from '../../../conformance/attestation/badge.ts';
import { preAuthEncoding, type DsseEnvelope } from '../../../conformance/attestation/dsse.ts';
import { keyFingerprint } from '../../../conformance/attestation/signing-key.ts';
import {
  PREDICATE_TYPE,
  STATEMENT_TYPE,
  type Statement,
} from '../../../conformance/attestation/statement.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { scopeOf } from '../../../conformance/report/scope.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const TLS: TlsEvidence = {
  field: 'baseUrl',
  host: 'acme.api.example:443',
  fingerprint256: Array.from({ length: 32 }, (_, index) =>
    index.toString(16).padStart(2, '0').toUpperCase(),
  ).join(':'),
  subject: 'CN=*.api.example',
  issuer: 'CN=Example CA',
  validFrom: '2026-01-01T00:00:00.000Z',
  validTo: '2027-01-01T00:00:00.000Z',
  alpn: { offered: ['http/1.1'], agreed: 'http/1.1' },
  protocols: ['HTTP/1.1', 'HTTP/2'],
};

function report(failing?: string): ConformanceReport {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  if (failing) outcomes.set(failing, [{ status: 'failed', failure: { message: 'served', evidence: [] } }]);
  return buildReport(outcomes, {
    target: { name: 'acme staging', mode: 'file', baseUrl: 'https://acme.api.example/v1' },
    profile: 'strict',
    startedAt: new Date('2026-03-04T05:06:07Z'),
    durationMs: 4321,
    options: {
      failOnIncomplete: true,
      requestTimeoutSeconds: 10,
      retries: 0,
      repeatEach: 1,
      selectedRules: RULES.length,
    },
    tls: [TLS],
    scope: scopeOf({
      protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
      tls: [TLS],
      rulesSelected: RULES.length,
      rulesInCatalog: RULES.length,
    }),
  });
}

/** A bundle of `built` in a fresh directory, signed with `key` if given. */
function bundleOf(built: ConformanceReport, key?: KeyObject): string {
  const reports = scratchDirectory('bundle-test-');
  writeReports(built, { exchanges: [] }, reports);
  return writeBundle(built, reports, key).directory;
}

const signer = generateKeyPairSync('ed25519');
const stranger = generateKeyPairSync('ed25519');
const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

test('a report pins what was tested: catalog digest, options, certificates; and it matches its schema', () => {
  const built = report();
  const validate = validatorFor<ConformanceReport>('conformance-report.schema.json');
  assert.ok(validate(built), describeSchemaErrors(validate.errors).join('\n'));
  const catalog = RULES.map((rule) => ({ id: rule.id, level: rule.level, statement: rule.statement }));
  assert.deepEqual(built.catalog, { sha256: sha256(JSON.stringify(catalog)), rules: RULES.length });
  assert.deepEqual(built.tls, [TLS]);
  assert.equal(built.options?.failOnIncomplete, true);
  // Run from this clone: the commit is the clone's HEAD.
  assert.match(built.suite.commit ?? '', /^[0-9a-f]{40}$/);
});

test('a signed CONFORMANT bundle is trusted with the signer’s public key; with only the key it carries it is intact but untrusted', async () => {
  const directory = bundleOf(report(), signer.privateKey);
  const given = await verifyBundle(directory, { trustedKeys: [stranger.publicKey, signer.publicKey] });
  assert.deepEqual(given.problems, []);
  assert.equal(given.report?.verdict, 'CONFORMANT');
  assert.deepEqual(given.signature, { state: 'trusted', fingerprint: keyFingerprint(signer.publicKey) });
  const carried = await verifyBundle(directory);
  assert.deepEqual(carried.problems, []);
  assert.deepEqual(carried.signature, { state: 'untrusted', fingerprint: keyFingerprint(signer.publicKey) });
  assert.equal(given.filesChecked, 10);
});

test('the statement is an in-toto Statement v1 whose subjects are the reports and badge, and the envelope signs exactly it', () => {
  const directory = bundleOf(report(), signer.privateKey);
  const statementBytes = readFileSync(join(directory, 'statement.json'));
  const statement = JSON.parse(statementBytes.toString('utf8')) as Statement;
  assert.equal(statement._type, STATEMENT_TYPE);
  assert.equal(statement.predicateType, PREDICATE_TYPE);
  assert.deepEqual(
    statement.subject.map((subject) => subject.name),
    ['conformance.json', 'conformance.md', 'conformance.html', 'junit.xml', 'exchanges.har', 'badge.svg'],
  );
  for (const subject of statement.subject)
    assert.equal(subject.digest.sha256, sha256(readFileSync(join(directory, subject.name))), subject.name);
  assert.equal(statement.predicate.verdict, 'CONFORMANT');
  assert.deepEqual(statement.predicate.tls, [TLS]);
  const envelope = JSON.parse(readFileSync(join(directory, 'statement.dsse.json'), 'utf8')) as DsseEnvelope;
  assert.equal(envelope.payloadType, 'application/vnd.in-toto+json');
  assert.ok(Buffer.from(envelope.payload, 'base64').equals(statementBytes));
  assert.equal(envelope.signatures[0]?.keyid, keyFingerprint(signer.publicKey));
  // SHA256SUMS lists every other file, in sha256sum's format.
  const sums = readFileSync(join(directory, 'SHA256SUMS'), 'utf8');
  assert.match(sums, new RegExp(`^${sha256(statementBytes)}  statement\\.json$`, 'm'));
  assert.equal(sums.trim().split('\n').length, 9);
});

test('DSSE pre-authentication encoding: the specification’s example', () => {
  assert.equal(
    preAuthEncoding('http://example.com/HelloWorld', Buffer.from('hello world')).toString(),
    'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
  );
});

/** Runs `tamper` on a fresh signed bundle and returns what verify finds. */
async function problemsAfter(
  tamper: (directory: string) => void,
  key: KeyObject = signer.publicKey,
): Promise<string[]> {
  const directory = bundleOf(report(), signer.privateKey);
  tamper(directory);
  return (await verifyBundle(directory, { trustedKeys: [key] })).problems;
}

const edit = (directory: string, name: string, from: string | RegExp, to: string): void => {
  const path = join(directory, name);
  const before = readFileSync(path, 'utf8');
  const after = before.replace(from, to);
  assert.notEqual(after, before, `the edit of ${name} changes it`);
  writeFileSync(path, after);
};

test('a changed report fails, naming it: the one sed that turns a verdict around', async () => {
  const problems = await problemsAfter((directory) =>
    edit(directory, 'conformance.json', '"CONFORMANT"', '"NOT CONFORMANT"'),
  );
  assert.ok(
    problems.some((problem) => /^conformance\.json was changed/.test(problem)),
    problems.join('\n'),
  );
  assert.ok(problems.some((problem) => /statement\.json does not match conformance\.json/.test(problem)));
});

test('a changed HAR fails, naming it', async () => {
  const problems = await problemsAfter((directory) => appendFileSync(join(directory, 'exchanges.har'), ' '));
  assert.ok(
    problems.some((problem) => /^exchanges\.har was changed/.test(problem)),
    problems.join('\n'),
  );
});

test('a changed statement fails, naming it, and the signature no longer covers it', async () => {
  const problems = await problemsAfter((directory) =>
    edit(directory, 'statement.json', '"acme staging"', '"globex"'),
  );
  assert.ok(
    problems.some((problem) => /^statement\.json was changed/.test(problem)),
    problems.join('\n'),
  );
  assert.ok(problems.some((problem) => /statement\.dsse\.json signs a different statement/.test(problem)));
  assert.ok(
    problems.some((problem) => /predicate does not match conformance\.json in: target/.test(problem)),
  );
});

test('a changed signature fails, naming the envelope', async () => {
  const problems = await problemsAfter((directory) => {
    const path = join(directory, 'statement.dsse.json');
    const envelope = JSON.parse(readFileSync(path, 'utf8')) as DsseEnvelope;
    const signature = Buffer.from(envelope.signatures[0]?.sig ?? '', 'base64');
    signature[0] = (signature[0] ?? 0) ^ 1;
    envelope.signatures = [{ keyid: envelope.signatures[0]?.keyid ?? '', sig: signature.toString('base64') }];
    writeFileSync(path, JSON.stringify(envelope));
  });
  assert.ok(
    problems.some((problem) => /^statement\.dsse\.json was changed/.test(problem)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((problem) =>
      /The signature in statement\.dsse\.json does not verify with signer\.pub\.pem/.test(problem),
    ),
    problems.join('\n'),
  );
});

test('a bundle signed by a key other than the one given is intact but untrusted, naming the key that signed', async () => {
  const directory = bundleOf(report(), signer.privateKey);
  const result = await verifyBundle(directory, { trustedKeys: [stranger.publicKey] });
  assert.deepEqual(result.problems, []);
  assert.deepEqual(result.signature, { state: 'untrusted', fingerprint: keyFingerprint(signer.publicKey) });
});

test('a bundle re-signed by another key after a change is never trusted with the signer’s key', async () => {
  const directory = bundleOf(report('KEY-REVOKED-REJECTED'), stranger.privateKey);
  const result = await verifyBundle(directory, { trustedKeys: [signer.publicKey] });
  assert.deepEqual(result.signature, { state: 'untrusted', fingerprint: keyFingerprint(stranger.publicKey) });
});

test('an added file, an added folder and a missing file fail, each named', async () => {
  const problems = await problemsAfter((directory) => {
    writeFileSync(join(directory, 'extra.txt'), 'hello');
    mkdirSync(join(directory, 'more'));
    rmSync(join(directory, 'junit.xml'));
  });
  assert.ok(
    problems.includes('extra.txt was added: it is not listed in SHA256SUMS (refused unread).'),
    problems.join('\n'),
  );
  assert.ok(problems.includes('more/ was added: it is not listed in SHA256SUMS (refused unread).'));
  assert.ok(problems.includes('junit.xml is missing (listed in SHA256SUMS).'));
  assert.ok(problems.includes('statement.json names junit.xml, which is not in the bundle.'));
});

test('an unsigned bundle rewritten to match changed files still fails: the statement’s predicate is checked against the report', async () => {
  const directory = bundleOf(report());
  // The forger changes the verdict, then fixes every digest: the subject and SHA256SUMS.
  edit(directory, 'conformance.json', '"verdict": "CONFORMANT"', '"verdict": "NOT CONFORMANT"');
  const reportDigest = sha256(readFileSync(join(directory, 'conformance.json')));
  const statementPath = join(directory, 'statement.json');
  const statement = JSON.parse(readFileSync(statementPath, 'utf8')) as Statement;
  const subject = statement.subject.find((candidate) => candidate.name === 'conformance.json');
  if (subject) subject.digest.sha256 = reportDigest;
  writeFileSync(statementPath, `${JSON.stringify(statement, null, 2)}\n`);
  const sums = readFileSync(join(directory, 'SHA256SUMS'), 'utf8')
    .split('\n')
    .map((line) =>
      line.endsWith('  conformance.json')
        ? `${reportDigest}  conformance.json`
        : line.endsWith('  statement.json')
          ? `${sha256(readFileSync(statementPath))}  statement.json`
          : line,
    )
    .join('\n');
  writeFileSync(join(directory, 'SHA256SUMS'), sums);
  const { problems } = await verifyBundle(directory);
  // The renderings, not re-rendered by this forger, still say CONFORMANT: each is named.
  assert.deepEqual(
    problems.flatMap(
      (problem) => /^(\S+) is not the rendering of conformance\.json/.exec(problem)?.[1] ?? [],
    ),
    ['conformance.md', 'junit.xml', 'conformance.html'],
  );
  assert.deepEqual(
    problems.filter((problem) => !/is not the rendering of/.test(problem)),
    [
      'conformance.json says NOT CONFORMANT, but its rules come to CONFORMANT (profile strict).',
      "statement.json's predicate does not match conformance.json in: verdict.",
    ],
  );
});

test('an unsigned bundle is intact but unsigned, with or without a key given', async () => {
  const directory = bundleOf(report());
  for (const trustedKeys of [[], [signer.publicKey]]) {
    const result = await verifyBundle(directory, { trustedKeys });
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.signature, { state: 'unsigned' });
  }
});

test('the bundle holds the public key only, never the private key', () => {
  const directory = bundleOf(report(), signer.privateKey);
  const privatePem = signer.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const privateBody = privatePem.split('\n')[1] ?? '';
  assert.ok(privateBody.length > 20);
  for (const name of ['signer.pub.pem', 'statement.dsse.json', 'statement.json', 'SHA256SUMS'])
    assert.ok(!readFileSync(join(directory, name), 'utf8').includes(privateBody), name);
  assert.doesNotMatch(readFileSync(join(directory, 'signer.pub.pem'), 'utf8'), /PRIVATE/);
});

test('the badge: verdict, profile and date, coloured by verdict; and its Markdown line', () => {
  const passing = renderBadge(report());
  assert.match(
    passing,
    /<title>tenant-auth conformance: CONFORMANT · strict · 2026-03-04 · revoked key: vendor&#39;s word<\/title>/,
  );
  assert.match(passing, /fill="#4c1"/);
  assert.match(renderBadge(report('KEY-REVOKED-REJECTED')), /fill="#e05d44"/);
  assert.match(renderBadge({ ...report(), verdict: 'INCOMPLETE' }), /fill="#dfb317"/);
  assert.match(renderBadge({ ...report(), verdict: 'SETUP ERROR' }), /fill="#9f9f9f"/);
  assert.equal(
    badgeMarkdown(report()),
    "[![tenant-auth conformance: CONFORMANT · strict · 2026-03-04 · revoked key: vendor's word](bundle/badge.svg)](bundle/conformance.html)",
  );
  // The two boxes add up to the badge's width.
  const widths = [...passing.matchAll(/<rect (?:x="\d+" )?width="(\d+)" height="20" fill="#/g)].map((match) =>
    Number(match[1]),
  );
  assert.equal(Number(/<svg [^>]*width="(\d+)"/.exec(passing)?.[1]), (widths[0] ?? 0) + (widths[1] ?? 0));
});
