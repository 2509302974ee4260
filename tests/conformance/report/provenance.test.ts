// What pins a report to what was tested — the kit's commit, the catalog digest, the options, each
// host's certificate — shown in the Markdown and HTML reports, and named by `compare` when two
// reports differ in it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConformanceReport, TlsEvidence } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import {
  comparisonMatrix,
  matrixHtml,
  matrixMarkdown,
  provenanceWarning,
} from '../../../conformance/report/compare.ts';
import { renderHtml } from '../../../conformance/report/html.ts';
import { renderMarkdown } from '../../../conformance/report/markdown.ts';
import { sourceCommit } from '../../../conformance/report/provenance.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const fingerprint = (byte: string): string => Array.from({ length: 32 }, () => byte).join(':');

function tlsOf(byte: string): TlsEvidence {
  return {
    field: 'baseUrl',
    host: 'acme.api.example:443',
    fingerprint256: fingerprint(byte),
    subject: 'CN=*.api.example',
    issuer: 'CN=Example CA',
    validFrom: '2026-01-01T00:00:00.000Z',
    validTo: '2027-01-01T00:00:00.000Z',
    alpn: { offered: ['http/1.1'], agreed: null },
  };
}

function report(tls: TlsEvidence): ConformanceReport {
  return buildReport(new Map(RULES.map((rule) => [rule.id, [{ status: 'passed' as const }]])), {
    target: { name: 'acme', mode: 'file', baseUrl: 'https://acme.api.example/v1' },
    profile: 'default',
    startedAt: new Date('2026-05-06T07:08:09Z'),
    durationMs: 1000,
    options: {
      failOnIncomplete: false,
      requestTimeoutSeconds: 10,
      retries: 2,
      repeatEach: 1,
      selectedRules: 5,
    },
    tls: [tls],
  });
}

test('the Markdown and HTML reports show the commit, the catalog, the options and each certificate', () => {
  const built = report(tlsOf('AB'));
  for (const text of [renderMarkdown(built), renderHtml(built, { harEntries: new Map() })]) {
    assert.ok(text.includes(`commit ${built.suite.commit ?? '?'}`));
    assert.ok(text.includes(`${RULES.length} rules, sha256 ${built.catalog?.sha256 ?? '?'}`));
    assert.ok(text.includes('5 rules selected, request timeout 10 s, fail on incomplete: no, retries 2'));
    assert.ok(text.includes(`acme.api.example:443: SHA-256 ${fingerprint('AB')}`));
    assert.ok(text.includes('ALPN none agreed (offered http/1.1)'));
  }
});

test('compare names a different certificate, and a different catalog; the same ones pass without a word', () => {
  const same = comparisonMatrix([report(tlsOf('AB')), report(tlsOf('AB'))]);
  assert.equal(provenanceWarning(same), undefined);
  const older = { ...report(tlsOf('AB')), catalog: { sha256: '0'.repeat(64), rules: 3 } };
  const matrix = comparisonMatrix([report(tlsOf('AB')), report(tlsOf('CD')), older]);
  assert.deepEqual(
    matrix.provenance.filter((row) => row.differs).map((row) => row.label),
    ['Rule catalog (sha256)', 'Certificate of baseUrl (SHA-256)'],
  );
  assert.match(
    matrixMarkdown(matrix),
    /\| \*Certificate of baseUrl \(SHA-256\)\* \*\*differs\*\* \| \| AB:AB:AB:AB:AB:AB:AB:AB… \| CD:CD:CD:CD:CD:CD:CD:CD… \|/,
  );
  assert.match(
    matrixMarkdown(matrix),
    /These reports differ in what was tested: Rule catalog \(sha256\); Certificate of baseUrl/,
  );
  assert.match(matrixHtml(matrix), /<p class="differs"><strong>These reports differ/);
  // A report from before certificates were recorded.
  const untracked = report(tlsOf('AB'));
  delete untracked.tls;
  assert.deepEqual(comparisonMatrix([untracked, report(tlsOf('AB'))]).provenance.at(-1)?.cells, [
    'not recorded',
    `${fingerprint('AB').slice(0, 23)}…`,
  ]);
});

test('the source commit is that of the kit’s own clone only, never of a repository it is installed in', () => {
  // A directory that is no clone at all.
  assert.deepEqual(sourceCommit(scratchDirectory('not-a-clone-')), {});
  // This clone: its HEAD.
  assert.match(sourceCommit().commit ?? '', /^[0-9a-f]{40}$/);
  // A folder inside this clone, as an installed package inside a project's repository would be.
  assert.deepEqual(sourceCommit(import.meta.dirname), {});
});
