// From test outcomes to rule verdicts to the run's verdict, and the documents rendered from them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { validatorFor, describeSchemaErrors } from '../../../schemas/validators.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import {
  comparisonMatrix,
  defaultLabels,
  matrixHtml,
  matrixMarkdown,
} from '../../../conformance/report/compare.ts';
import { renderMarkdown } from '../../../conformance/report/markdown.ts';
import {
  NOT_RUN_MESSAGE,
  overallVerdict,
  ruleVerdict,
  type TestOutcome,
} from '../../../conformance/report/verdict.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';

const evidence = [{ method: 'GET', url: 'https://acme.api.example/v1/customers', status: 200 }];

test('a rule verdict: failure, error, warning, not evaluated, pass', () => {
  assert.deepEqual(ruleVerdict([{ status: 'failed', failure: { message: 'served', evidence } }]), {
    verdict: 'fail',
    message: 'served',
    evidence,
  });
  assert.equal(ruleVerdict([{ status: 'failed', error: 'ECONNRESET' }]).verdict, 'error');
  assert.equal(ruleVerdict([{ status: 'timedOut' }]).verdict, 'error');
  // Skipped because the target had stopped answering: never run, so ERROR, not "not evaluated".
  assert.deepEqual(ruleVerdict([{ status: 'skipped', notSent: 'not sent: the target stopped answering' }]), {
    verdict: 'error',
    message: 'not sent: the target stopped answering',
  });
  assert.deepEqual(
    ruleVerdict([{ status: 'passed', warning: 'no HSTS', failure: { message: 'no HSTS', evidence } }]),
    {
      verdict: 'warning',
      message: 'no HSTS',
      evidence,
    },
  );
  assert.deepEqual(ruleVerdict([{ status: 'skipped', notEvaluated: 'not evaluated: add x' }]), {
    verdict: 'not-evaluated',
    message: 'not evaluated: add x',
  });
  assert.deepEqual(ruleVerdict([]), { verdict: 'not-evaluated', message: NOT_RUN_MESSAGE });
  assert.deepEqual(ruleVerdict([{ status: 'passed' }]), { verdict: 'pass' });
  const mixed: TestOutcome[] = [
    { status: 'passed' },
    { status: 'failed', failure: { message: 'm', evidence: [] } },
  ];
  assert.equal(ruleVerdict(mixed).verdict, 'fail', 'one failing test fails the rule');
});

test('the run verdict: MUST decides; HTTP only under strict; ADVISORY never', () => {
  assert.equal(overallVerdict([{ level: 'MUST', verdict: 'fail' }], 'default'), 'NOT CONFORMANT');
  assert.equal(overallVerdict([{ level: 'HTTP', verdict: 'fail' }], 'default'), 'CONFORMANT');
  assert.equal(overallVerdict([{ level: 'HTTP', verdict: 'fail' }], 'strict'), 'NOT CONFORMANT');
  assert.equal(overallVerdict([{ level: 'ADVISORY', verdict: 'fail' }], 'strict'), 'CONFORMANT');
  assert.equal(overallVerdict([{ level: 'MUST', verdict: 'not-evaluated' }], 'default'), 'INCOMPLETE');
  assert.equal(overallVerdict([{ level: 'MUST', verdict: 'error' }], 'default'), 'INCOMPLETE');
  assert.equal(overallVerdict([{ level: 'ADVISORY', verdict: 'not-evaluated' }], 'default'), 'CONFORMANT');
  assert.equal(
    overallVerdict(
      [
        { level: 'MUST', verdict: 'not-evaluated' },
        { level: 'MUST', verdict: 'fail' },
      ],
      'default',
    ),
    'NOT CONFORMANT',
  );
});

function sampleReport(failing: string): ConformanceReport {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  outcomes.set(failing, [{ status: 'failed', failure: { message: 'A | pipe\nand a line', evidence } }]);
  return buildReport(outcomes, {
    target: { name: 'impl <b>&', mode: 'file', baseUrl: 'https://acme.api.example/v1' },
    profile: 'default',
    startedAt: new Date('2026-01-02T03:04:05Z'),
    durationMs: 1234,
  });
}

test('a built report covers the whole catalog and matches its schema', () => {
  const report = sampleReport('KEY-REVOKED-REJECTED');
  const validate = validatorFor<ConformanceReport>('conformance-report.schema.json');
  assert.ok(validate(report), describeSchemaErrors(validate.errors).join('\n'));
  assert.equal(report.rules.length, RULES.length);
  assert.equal(report.verdict, 'NOT CONFORMANT');
  assert.deepEqual(report.summary, {
    pass: RULES.length - 1,
    fail: 1,
    warning: 0,
    notEvaluated: 0,
    notApplicable: 0,
    error: 0,
  });
  assert.match(report.spec.sha256, /^[0-9a-f]{64}$/);
});

test('the Markdown report leads with the verdict and keeps table cells intact', () => {
  const markdown = renderMarkdown(sampleReport('KEY-REVOKED-REJECTED'));
  assert.match(markdown, /\*\*Verdict: NOT CONFORMANT\*\*/);
  assert.match(markdown, /\| KEY-REVOKED-REJECTED \| MUST \| FAIL \|/);
  assert.match(markdown, /### KEY-REVOKED-REJECTED — FAIL \(MUST\)/);
  assert.match(markdown, /`GET https:\/\/acme\.api\.example\/v1\/customers` → 200/);
});

test('the comparison matrix puts each rule against each report, escaped for HTML', () => {
  const matrix = comparisonMatrix([sampleReport('KEY-REVOKED-REJECTED'), sampleReport('TRANSPORT-HSTS')]);
  assert.equal(matrix.rows.length, RULES.length);
  assert.deepEqual(matrix.rows.find((row) => row.id === 'KEY-REVOKED-REJECTED')?.cells, ['FAIL', 'pass']);
  assert.deepEqual(matrix.verdicts, ['NOT CONFORMANT', 'CONFORMANT']);
  assert.match(matrixMarkdown(matrix), /\| TRANSPORT-HSTS \| ADVISORY \| pass \| FAIL \|/);
  const html = matrixHtml(matrix);
  assert.ok(html.includes('impl &#60;b&#62;&#38;') && !html.includes('impl <b>'), 'names are escaped');
});

test('comparison columns: given labels, or target, profile and time, numbered when still alike', () => {
  const reports = [sampleReport('KEY-REVOKED-REJECTED'), sampleReport('TRANSPORT-HSTS')];
  assert.deepEqual(defaultLabels(reports), [
    'impl <b>& (default, 2026-01-02 03:04:05Z) #1',
    'impl <b>& (default, 2026-01-02 03:04:05Z) #2',
  ]);
  const later = { ...sampleReport('TRANSPORT-HSTS'), startedAt: '2026-01-02T04:00:00.000Z' };
  assert.deepEqual(defaultLabels([reports[0] as ConformanceReport, later]), [
    'impl <b>& (default, 2026-01-02 03:04:05Z)',
    'impl <b>& (default, 2026-01-02 04:00:00Z)',
  ]);
  assert.deepEqual(comparisonMatrix(reports, ['v1', 'v2']).columns, ['v1', 'v2']);
  assert.throws(
    () => comparisonMatrix(reports, ['only one']),
    /1 labels for 2 reports: give one --label per report/,
  );
});
