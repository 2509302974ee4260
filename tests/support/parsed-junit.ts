// A conformance report's JUnit as CI reads it, for the tests of the report files: checked to be
// well-formed XML, then parsed, its test cases by rule id (a warning's "[WARNING] " prefix aside).
import assert from 'node:assert/strict';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { renderJunit } from '../../conformance/report/junit.ts';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';

export function parsedJunit(report: ConformanceReport): {
  xml: string;
  cases: Map<string, Record<string, unknown>>;
  root: Record<string, string>;
} {
  const xml = renderJunit(report);
  assert.equal(XMLValidator.validate(xml), true, 'well-formed XML');
  const parsed = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  }).parse(xml) as {
    testsuites: Record<string, string> & { testsuite: { testcase: Record<string, unknown>[] }[] };
  };
  const cases = new Map<string, Record<string, unknown>>();
  for (const suite of parsed.testsuites.testsuite)
    for (const testCase of suite.testcase)
      cases.set(
        String(testCase.name)
          .replace(/^\[WARNING\] /, '')
          .split(':')[0] ?? '',
        testCase,
      );
  return { xml, cases, root: parsed.testsuites };
}
