// What a run covered (report/scope.ts) and what that does to its verdict (report/verdict.ts,
// runVerdict): a partial run keeps under the default profile the verdict its rules give, labelled;
// under --profile strict it is never CONFORMANT but INCOMPLETE, with the reason and the fix in
// every report's scope line, and the exit code of an INCOMPLETE run. How each report and `verify`
// show it: tests/conformance/attestation/partial-runs.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import { comparisonMatrix, matrixMarkdown } from '../../../conformance/report/compare.ts';
import {
  scopeLine,
  scopeOf,
  SETUP_ERROR_SCOPE,
  STRICT_PARTIAL,
  verdictWithScope,
  type ScopeInputs,
} from '../../../conformance/report/scope.ts';
import { EXIT_CODE, exitCodeFor, runVerdict, type TestOutcome } from '../../../conformance/report/verdict.ts';
import type { Profile } from '../../../conformance/deployment/target.ts';
import { tlsEvidence as host } from '../../support/tls-evidence.ts';

const BOTH = ['HTTP/1.1', 'HTTP/2'];

const scope = (inputs: Partial<ScopeInputs> = {}): ReturnType<typeof scopeOf> =>
  scopeOf({
    protocolsChecked: BOTH,
    tls: [host(BOTH)],
    rulesSelected: RULES.length,
    rulesInCatalog: RULES.length,
    ...inputs,
  });

/** A run's report: every rule passed but `failing` (a failed test each), not run `notRun`. */
function report(
  profile: Profile,
  inputs: Partial<ScopeInputs> = {},
  { failing = [], notRun = [] }: { failing?: string[]; notRun?: string[] } = {},
): ConformanceReport {
  const outcomes = new Map<string, TestOutcome[]>(
    RULES.filter((rule) => !notRun.includes(rule.id)).map((rule) => [rule.id, [{ status: 'passed' }]]),
  );
  for (const id of failing)
    outcomes.set(id, [{ status: 'failed', failure: { message: 'served another tenant', evidence: [] } }]);
  const runScope = scope(inputs);
  return buildReport(outcomes, {
    target: { name: 'acme', mode: 'file', baseUrl: 'https://acme.api.example/v1' },
    profile,
    startedAt: new Date('2026-11-25T10:00:00Z'),
    durationMs: 1000,
    tls: runScope.protocolsOffered.length > 0 ? [host(runScope.protocolsOffered)] : [],
    scope: runScope,
  });
}

const H1_ONLY = { protocolsChecked: ['HTTP/1.1'] };
const passed = RULES.map((rule) => ({ level: rule.level, verdict: 'pass' as const }));

test('runVerdict: a complete run is CONFORMANT under both profiles', () => {
  for (const profile of ['default', 'strict'] as const)
    assert.equal(runVerdict(passed, profile, scope()), 'CONFORMANT', profile);
  // A report from before scopes were recorded: the verdict its rules give.
  assert.equal(runVerdict(passed, 'strict'), 'CONFORMANT');
});

test('runVerdict: a partial run is CONFORMANT (labelled) by default, INCOMPLETE under strict', () => {
  const partial = scope(H1_ONLY);
  assert.equal(partial.partial.length, 1);
  assert.equal(runVerdict(passed, 'default', partial), 'CONFORMANT');
  assert.equal(runVerdict(passed, 'strict', partial), 'INCOMPLETE');
});

test('runVerdict: a failure found stays NOT CONFORMANT whatever the scope', () => {
  const failed = passed.map((rule, index) => (index === 0 ? { ...rule, verdict: 'fail' as const } : rule));
  assert.equal(RULES[0]?.level, 'MUST');
  for (const profile of ['default', 'strict'] as const)
    assert.equal(runVerdict(failed, profile, scope(H1_ONLY)), 'NOT CONFORMANT', profile);
});

test('under strict, an HTTP/1.1-only run of an HTTP/2-capable target is INCOMPLETE · HTTP/1.1 only, its scope line saying why and what to do', () => {
  const built = report('strict', H1_ONLY);
  assert.equal(built.verdict, 'INCOMPLETE');
  assert.equal(verdictWithScope(built), 'INCOMPLETE · HTTP/1.1 only');
  const line = scopeLine(built) ?? '';
  assert.match(
    line,
    /^PARTIAL: HTTP\/2 was not checked, but the target offers it \(api\.acme\.example:443\)/,
  );
  assert.ok(line.includes(STRICT_PARTIAL), line);
  assert.match(STRICT_PARTIAL, /never CONFORMANT/);
  // The exit code of an INCOMPLETE run: 0 without --fail-on-incomplete, 1 with it.
  assert.equal(exitCodeFor(built, false), EXIT_CODE.ok);
  assert.equal(exitCodeFor(built, true), EXIT_CODE.notConformant);
});

test('under the default profile the same run stays CONFORMANT · HTTP/1.1 only, without the strict note', () => {
  const built = report('default', H1_ONLY);
  assert.equal(built.verdict, 'CONFORMANT');
  assert.equal(verdictWithScope(built), 'CONFORMANT · HTTP/1.1 only');
  assert.ok(!(scopeLine(built) ?? '').includes(STRICT_PARTIAL));
});

test('under strict, a target offering HTTP/1.1 alone is complete over it: CONFORMANT, no label', () => {
  const built = report('strict', { ...H1_ONLY, tls: [host(['HTTP/1.1'])] });
  assert.deepEqual(built.scope?.partial, []);
  assert.equal(built.verdict, 'CONFORMANT');
  assert.equal(verdictWithScope(built), 'CONFORMANT');
});

test('under strict, a selection that leaves out only rules that never decide a verdict is still INCOMPLETE', () => {
  const advisory = RULES.filter((rule) => rule.level === 'ADVISORY').map((rule) => rule.id);
  assert.ok(advisory.length > 0);
  const selection = {
    rulesSelected: RULES.length - advisory.length,
    grepInvert: 'ADVISORY',
  };
  // By default the ADVISORY rules left out do not decide: CONFORMANT, labelled with the count.
  const lenient = report('default', selection, { notRun: advisory });
  assert.equal(lenient.verdict, 'CONFORMANT');
  assert.equal(
    verdictWithScope(lenient),
    `CONFORMANT · ${RULES.length - advisory.length} of ${RULES.length} rules`,
  );
  const strict = report('strict', selection, { notRun: advisory });
  assert.equal(strict.verdict, 'INCOMPLETE');
  assert.match(scopeLine(strict) ?? '', /rules were selected \(--grep-invert ADVISORY\)/);
});

test('under strict, a partial run with a failure is NOT CONFORMANT, labelled with what it left out', () => {
  const must = RULES.find((rule) => rule.level === 'MUST')?.id ?? '';
  const built = report('strict', H1_ONLY, { failing: [must] });
  assert.equal(built.verdict, 'NOT CONFORMANT');
  assert.equal(verdictWithScope(built), 'NOT CONFORMANT · HTTP/1.1 only');
  assert.equal(exitCodeFor(built, false), EXIT_CODE.notConformant);
});

test("compare shows each report's verdict with its scope: a partial run is not a plain CONFORMANT beside a complete one", () => {
  const matrix = comparisonMatrix([report('default', H1_ONLY), report('strict', H1_ONLY), report('strict')]);
  assert.deepEqual(matrix.verdicts, [
    'CONFORMANT · HTTP/1.1 only',
    'INCOMPLETE · HTTP/1.1 only',
    'CONFORMANT',
  ]);
  assert.match(matrixMarkdown(matrix), /\| \*\*Verdict\*\* \| \| \*\*CONFORMANT · HTTP\/1\.1 only\*\* \|/);
});

test('a SETUP ERROR: its scope says nothing was checked, nothing of protocols it never reached', () => {
  const built = { ...report('default', H1_ONLY), verdict: 'SETUP ERROR' as const };
  // The same scope, which alone would say "the target offers HTTP/1.1 and HTTP/2".
  assert.match(scopeLine({ scope: built.scope }) ?? '', /the target offers/);
  assert.equal(scopeLine(built), SETUP_ERROR_SCOPE);
  assert.doesNotMatch(SETUP_ERROR_SCOPE, /offers (HTTP|it)/);
  assert.equal(verdictWithScope(built), 'SETUP ERROR');
});
