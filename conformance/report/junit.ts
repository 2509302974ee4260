// junit.xml as CI shows it: one test case per rule, in a suite per level. A failed rule is a
// <failure> whose message says what was expected and what came back; a rule that could not run
// is an <error>; a warning keeps the case passing but says so in its name, in a property and in
// <system-out>; a rule not evaluated is <skipped> with the reason. A run that never got to the
// rules (SETUP ERROR) is one <error> case, with every rule skipped.
import { XMLBuilder } from 'fast-xml-parser';
import type { ConformanceReport, RuleResult } from '../../schemas/generated/conformance-report.ts';
import { evidenceLines } from './evidence-text.ts';
import { setupErrorOf } from './setup-error.ts';
import { trafficLine } from './traffic-summary.ts';
import { protocolsLine } from './outcomes-by-protocol.ts';
import { scopeLine, verdictWithScope } from './scope.ts';

export type Element = Record<string, unknown>;

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  format: true,
  suppressEmptyNode: true,
});

/** Characters XML 1.0 cannot hold at all (a body may contain them); they become U+FFFD. */
export function xmlSafe(text: string): string {
  // eslint-disable-next-line no-control-regex -- these are exactly the characters to remove.
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD');
}

export function testCaseName(rule: Pick<RuleResult, 'id' | 'level' | 'statement' | 'verdict'>): string {
  const prefix = rule.verdict === 'warning' ? '[WARNING] ' : '';
  return `${prefix}${rule.level} ${rule.id}: ${rule.statement}`;
}

export function renderJunit(
  report: ConformanceReport,
  secondsByRule: ReadonlyMap<string, number> = new Map(),
): string {
  const setupFailed = report.verdict === 'SETUP ERROR';
  const levels = ['MUST', 'HTTP', 'ADVISORY'] as const;
  const suites = levels.map((level) => {
    const rules = report.rules.filter((rule) => rule.level === level);
    const cases = rules.map((rule) => testCase(report, rule, secondsByRule.get(rule.id) ?? 0));
    return suite(`${level} rules`, cases, rules, setupFailed, runProperties(report));
  });
  if (setupFailed) suites.unshift(setupSuite(report));
  return junitDocument(
    `conformance of ${report.target.name} (${report.profile}): ${verdictWithScope(report)}`,
    suites,
    report.durationMs,
  );
}

/** A JUnit document of `suites` (each with its @tests, @failures, @errors, @skipped counts). */
export function junitDocument(name: string, suites: readonly Element[], durationMs: number): string {
  const count = (key: 'tests' | 'failures' | 'errors' | 'skipped'): number =>
    suites.reduce((sum, one) => sum + Number(one[`@${key}`]), 0);
  const document = {
    '?xml': { '@version': '1.0', '@encoding': 'UTF-8' },
    testsuites: {
      '@name': xmlSafe(name),
      '@tests': count('tests'),
      '@failures': count('failures'),
      '@errors': count('errors'),
      '@skipped': count('skipped'),
      '@time': (durationMs / 1000).toFixed(3),
      testsuite: suites,
    },
  };
  return builder.build(document);
}

function suite(
  name: string,
  cases: Element[],
  rules: readonly RuleResult[],
  setupFailed: boolean,
  properties: Element,
): Element {
  const count = (verdict: RuleResult['verdict']): number =>
    rules.filter((rule) => rule.verdict === verdict).length;
  return {
    '@name': name,
    '@tests': rules.length,
    '@failures': setupFailed ? 0 : count('fail'),
    '@errors': setupFailed ? 0 : count('error'),
    '@skipped': setupFailed ? rules.length : count('not-evaluated') + count('not-applicable'),
    properties,
    testcase: cases,
  };
}

function runProperties(report: ConformanceReport): Element {
  return {
    property: [
      { '@name': 'verdict', '@value': report.verdict },
      { '@name': 'target', '@value': xmlSafe(`${report.target.name} ${report.target.baseUrl}`) },
      { '@name': 'profile', '@value': report.profile },
      { '@name': 'suite', '@value': `${report.suite.name} ${report.suite.version}` },
      { '@name': 'started', '@value': report.startedAt },
      ...(report.protocols ? [{ '@name': 'protocols', '@value': protocolsLine(report) ?? '' }] : []),
      ...(report.scope ? [{ '@name': 'scope', '@value': xmlSafe(scopeLine(report) ?? '') }] : []),
      ...(report.traffic
        ? [{ '@name': 'traffic', '@value': xmlSafe(trafficLine(report.traffic) ?? '') }]
        : []),
    ],
  };
}

function setupSuite(report: ConformanceReport): Element {
  const setup = setupErrorOf(report);
  const message = setup ? `${setup.stage}: ${setup.message}` : 'the run could not start checking';
  const detail = setup
    ? [setup.url ? `URL: ${setup.url}` : '', setup.fix ? `Fix: ${setup.fix}` : ''].filter(Boolean).join('\n')
    : '';
  return {
    '@name': 'setup',
    '@tests': 1,
    '@failures': 0,
    '@errors': 1,
    '@skipped': 0,
    properties: runProperties(report),
    testcase: [
      {
        '@name': 'setup: the target can be checked',
        '@classname': 'conformance.setup',
        '@time': '0.000',
        error: { '@message': xmlSafe(message), '@type': 'SETUP ERROR', '#text': xmlSafe(detail) },
      },
    ],
  };
}

function testCase(report: ConformanceReport, rule: RuleResult, seconds: number): Element {
  const retries = rule.retries ? [{ '@name': 'retries', '@value': rule.retries }] : [];
  const base: Element = {
    '@name': xmlSafe(testCaseName(rule)),
    '@classname': `conformance.${rule.level}`,
    '@time': seconds.toFixed(3),
    ...(retries.length > 0 ? { properties: { property: retries } } : {}),
  };
  if (report.verdict === 'SETUP ERROR')
    return { ...base, skipped: { '@message': 'not evaluated: the run could not start checking' } };
  const message = xmlSafe(rule.message ?? '');
  const details = xmlSafe(
    [
      rule.message ?? '',
      ...(rule.evidence ?? []).flatMap((evidence) => ['', ...evidenceLines(evidence, report.target)]),
    ].join('\n'),
  );
  switch (rule.verdict) {
    case 'fail':
      return {
        ...base,
        failure: { '@message': message, '@type': `${rule.level} rule failed`, '#text': details },
      };
    case 'error':
      return {
        ...base,
        error: { '@message': message, '@type': 'the check could not run', '#text': details },
      };
    case 'not-evaluated':
    case 'not-applicable':
      return { ...base, skipped: { '@message': message } };
    case 'warning':
      return {
        ...base,
        properties: { property: [...retries, { '@name': 'warning', '@value': message }] },
        'system-out': `WARNING (${rule.level}, does not fail the run under profile ${report.profile}): ${details}`,
      };
    case 'pass':
      return base;
  }
}
