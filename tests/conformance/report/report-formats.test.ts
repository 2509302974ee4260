// Each report file as its reader reads it, from records made in-process (sample-run.ts): a HAR 1.2
// the evidence points into, JUnit that CI reads as failures, errors, skips and visible warnings, and
// an HTML page that stands alone, a SETUP ERROR saying what failed and what to fix in each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHar } from '../../../conformance/report/har.ts';
import { renderHtml } from '../../../conformance/report/html.ts';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { sampleRun } from './sample-run.ts';
import { SAMPLE_FAILING_RULE } from '../../support/sample-failure.ts';
import { parsedJunit } from '../../support/parsed-junit.ts';

test('exchanges.har is HAR 1.2, in time order, and every piece of evidence points to an entry', () => {
  const { report, exchanges } = sampleRun();
  const har = buildHar([...exchanges].reverse(), report.suite);
  assert.equal(har.log.version, '1.2');
  assert.equal(har.log.entries.length, exchanges.length);
  const times = har.log.entries.map((entry) => entry.startedDateTime);
  assert.deepEqual(times, [...times].sort());
  for (const entry of har.log.entries) {
    for (const field of ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings'] as const)
      assert.ok(entry[field] !== undefined, `${field} in every entry`);
    assert.ok(Array.isArray(entry.request.headers) && Array.isArray(entry.response.headers));
    assert.equal(typeof entry.response.content.mimeType, 'string');
  }
  const ids = new Set(har.log.entries.map((entry) => entry._id));
  const pointers = report.rules.flatMap((rule) => (rule.evidence ?? []).map((evidence) => evidence.exchange));
  assert.ok(pointers.length >= 2);
  for (const pointer of pointers) assert.ok(pointer && ids.has(pointer), `evidence ${pointer} has its entry`);
  const quoted = har.log.entries.find((entry) => entry._rule === SAMPLE_FAILING_RULE);
  assert.deepEqual(quoted?.request.headers[1], {
    name: 'Authorization',
    value: 'Bearer "$STAGING_FULL_ACCESS_KEY"',
  });
  assert.equal(quoted?.comment, `${SAMPLE_FAILING_RULE}: the key in double quotes`);
});

test('JUnit: a failed rule is a <failure>, one that could not run an <error>, a warning visible, not evaluated <skipped>', () => {
  const { report } = sampleRun();
  const { cases, root } = parsedJunit(report);
  assert.equal(cases.size, report.rules.length);
  assert.deepEqual([root.tests, root.failures, root.errors, root.skipped].map(Number), [
    report.rules.length,
    1,
    1,
    1,
  ]);
  const failed = cases.get(`MUST ${SAMPLE_FAILING_RULE}`) as {
    failure: { message: string; '#text': string };
  };
  assert.match(failed.failure.message, /expected a rejection \(4xx\), got 200/);
  assert.match(
    failed.failure['#text'],
    /Reproduce: curl .*"Authorization: Bearer \\"\$STAGING_FULL_ACCESS_KEY\\""/,
  );
  assert.match(
    String((cases.get('MUST TENANT-CROSS-KEY-REJECTED') as { error: { message: string } }).error.message),
    /ECONNRESET/,
  );
  assert.match(
    String((cases.get('MUST ENV-SANDBOX-KEY-SERVED') as { skipped: { message: string } }).skipped.message),
    /lacks sandboxBaseUrl/,
  );
  const warned = cases.get('HTTP KEY-INVALID-401') as {
    name: string;
    properties: { property: { name: string; value: string }[] };
    'system-out': string;
  };
  assert.match(warned.name, /^\[WARNING\] /);
  assert.match(
    warned.properties.property.find((property) => property.name === 'warning')?.value ?? '',
    /expected status 401, got 400/,
  );
  assert.match(warned['system-out'], /^WARNING .*expected status 401, got 400/);
  const passed = cases.get('MUST KEY-VALID-SERVED') as Record<string, unknown>;
  assert.deepEqual(Object.keys(passed).sort(), ['classname', 'name', 'time']);
});

/** `report` as a run that could not reach its base URL makes it: SETUP ERROR, with what to fix. */
function setupErrorOf(report: ConformanceReport): ConformanceReport {
  return {
    ...report,
    verdict: 'SETUP ERROR',
    setupProblems: [
      {
        url: report.target.baseUrl,
        field: 'baseUrl',
        stage: 'connect',
        problem: 'ECONNREFUSED',
        fix: 'Start the server.',
      },
    ],
  };
}

test('JUnit of a SETUP ERROR: one error case saying what to fix, every rule skipped', () => {
  const { report } = sampleRun();
  const setupReport = setupErrorOf(report);
  const { xml, root } = parsedJunit(setupReport);
  assert.deepEqual([root.errors, root.skipped, root.failures].map(Number), [1, report.rules.length, 0]);
  assert.match(xml, /<error message="connect: ECONNREFUSED" type="SETUP ERROR">/);
  assert.match(xml, /Fix: Start the server\./);
});

test('conformance.html stands alone: verdict banner, every rule, evidence with curl, nothing loaded from elsewhere', () => {
  const { report, exchanges } = sampleRun();
  const withMarkup = { ...report, target: { ...report.target, name: 'staging <b>&amp;</b>' } };
  const html = renderHtml(withMarkup, {
    harEntries: new Map(
      buildHar(exchanges, report.suite).log.entries.map((entry, index) => [entry._id, index + 1]),
    ),
  });
  assert.match(html, /<div class="verdict" id="verdict">NOT CONFORMANT<\/div>/);
  assert.ok(html.includes('staging &#60;b&#62;&#38;amp;&#60;/b&#62;'), 'the target name is escaped');
  for (const rule of report.rules) assert.ok(html.includes(`data-rule="${rule.id}"`), `${rule.id} listed`);
  assert.match(html, /Bearer &#34;\$STAGING_FULL_ACCESS_KEY&#34;/);
  assert.match(html, /<pre class="curl">curl --include/);
  assert.match(html, /exchanges\.har: entry 2, <code>_id /);
  assert.match(
    html,
    /Content-Security-Policy" content="default-src &#39;none&#39;|Content-Security-Policy" content="default-src 'none'/,
  );
  assert.doesNotMatch(html, /\b(src|href)="(https?:)?\/\//, 'no external resource');
  assert.doesNotMatch(html, /@import|url\(/);
});

test('a SETUP ERROR report says so in the HTML banner, with what failed and what to fix', () => {
  const html = renderHtml(setupErrorOf(sampleRun().report));
  assert.match(html, /<header class="banner v-setup-error"/);
  assert.match(html, /<div class="verdict" id="verdict">SETUP ERROR<\/div>/);
  assert.match(
    html,
    /The run could not start checking: connect[\s\S]*ECONNREFUSED[\s\S]*Fix:<\/strong> Start the server\./,
  );
});
