// The report files a run writes, from records made in-process (sample-run.ts): keys shown as
// their variables, curl commands that send exactly what the suite sent, a HAR the evidence points
// into, JUnit that CI reads as failures, errors, skips and visible warnings, and an HTML page that
// stands alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { alteredKeys } from '../../../conformance/judging/key-variants.ts';
import { curlCommand } from '../../../conformance/report/curl.ts';
import { buildHar } from '../../../conformance/report/har.ts';
import { renderHtml } from '../../../conformance/report/html.ts';
import { renderJunit } from '../../../conformance/report/junit.ts';
import { renderMarkdown } from '../../../conformance/report/markdown.ts';
import { paint, summary } from '../../../conformance/report/console.ts';
import { REPORT_FILES, writeReports } from '../../../conformance/report/write-reports.ts';
import { REDACTED } from '../../../conformance/redaction/secrets.ts';
import { KeyNamer } from '../../../conformance/redaction/shown-keys.ts';
import type { ConformanceReport, Evidence } from '../../../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../../../schemas/validators.ts';
import { scanDirectory, secretForms } from '../../support/artifact-scan.ts';
import { SAMPLE_KEYS, sampleRun } from './sample-run.ts';
import { SAMPLE_FAILING_RULE } from '../../support/sample-failure.ts';

const KEY = SAMPLE_KEYS.STAGING_FULL_ACCESS_KEY;
const namer = new KeyNamer([{ variable: 'FULL_KEY', value: KEY }]);

test('the KeyNamer shows a key and each form the suite derives from it as an expression of its variable', () => {
  assert.equal(namer.show(`Bearer ${KEY}`), 'Bearer $FULL_KEY');
  assert.equal(namer.show(`Bearer "${KEY}"`), 'Bearer "$FULL_KEY"');
  assert.equal(namer.show(`?api_key=${KEY}&x=1`), '?api_key=$FULL_KEY&x=1');
  assert.equal(namer.show(`Bearer ${KEY}A`), 'Bearer ${FULL_KEY}A', 'braces where a name character follows');
  assert.equal(namer.show(`Bearer ${KEY.slice(0, -1)}`), 'Bearer ${FULL_KEY%?}');
  assert.equal(
    namer.show(`Basic ${Buffer.from(`${KEY}:`).toString('base64')}`),
    `Basic $(printf %s: $FULL_KEY | base64 | tr -d '[:space:]')`,
  );
  assert.equal(namer.show('nothing secret here, 0123456789abcdef'), 'nothing secret here, 0123456789abcdef');
  // An alteration no expression describes is still masked.
  const shown = namer.show(`Bearer ${KEY.slice(0, 20)}zzzzzzzzzzzz`);
  assert.equal(shown, `Bearer ${REDACTED}`);
});

test('a curl command sends exactly the headers the suite sent, every key form included', () => {
  const sentValues = [
    `Bearer ${KEY}`,
    `Bearer "${KEY}"`,
    `Bearer '${KEY}'`,
    ...alteredKeys(KEY).map((altered) => `Bearer ${altered.key}`),
    `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`,
    `Token ${KEY}`,
    '',
  ];
  for (const value of sentValues) {
    const evidence: Evidence = {
      method: 'GET',
      url: `https://acme.api.localhost:8443/v1/customers?api_key=${KEY}`,
      requestHeaders: [
        { name: 'Host', value: 'globex.api.localhost:8443' },
        { name: 'Authorization', value: namer.show(value) },
      ],
    };
    evidence.url = namer.show(evidence.url);
    const command = curlCommand(evidence, {
      caFile: '/tmp/ca dir/ca.crt',
      hosts: { '*.localhost': '127.0.0.1' },
    });
    assert.ok(!command.includes(KEY), 'the command holds no key');
    // The command as bash runs it, with curl replaced by a function printing its arguments.
    const argv = execFileSync(
      'bash',
      ['--norc', '--noprofile', '-c', `curl() { printf '%s\\0' "$@"; }; ${command}`],
      {
        env: { PATH: process.env.PATH, FULL_KEY: KEY },
        encoding: 'utf8',
      },
    )
      .split('\0')
      .slice(0, -1);
    const header = value === '' ? 'Authorization;' : `Authorization: ${value}`;
    assert.ok(argv.includes(header), `sends ${JSON.stringify(value)}; got ${JSON.stringify(argv)}`);
    assert.ok(argv.includes('Host: globex.api.localhost:8443'), 'a Host header other than the URL’s is kept');
    // curl would offer HTTP/2 on its own: evidence found over HTTP/1.1 is reproduced over it.
    assert.ok(argv.includes('--http1.1'), 'HTTP/1.1 said');
    assert.ok(argv.includes(`https://acme.api.localhost:8443/v1/customers?api_key=${KEY}`));
    assert.deepEqual(argv.slice(argv.indexOf('--cacert'), argv.indexOf('--cacert') + 4), [
      '--cacert',
      '/tmp/ca dir/ca.crt',
      '--resolve',
      'acme.api.localhost:8443:127.0.0.1',
    ]);
  }
});

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

function parsedJunit(report: ConformanceReport): {
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

test('JUnit of a SETUP ERROR: one error case saying what to fix, every rule skipped', () => {
  const { report } = sampleRun();
  const setupReport: ConformanceReport = {
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
  const { report } = sampleRun();
  const html = renderHtml({
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
  });
  assert.match(html, /<header class="banner v-setup-error"/);
  assert.match(html, /<div class="verdict" id="verdict">SETUP ERROR<\/div>/);
  assert.match(
    html,
    /The run could not start checking: connect[\s\S]*ECONNREFUSED[\s\S]*Fix:<\/strong> Start the server\./,
  );
});

test('the report files of a run match their schema and hold no key; without the KeyNamer the same scan finds the keys', () => {
  const forms = secretForms(SAMPLE_KEYS);
  const { report, exchanges } = sampleRun();
  const validate = validatorFor<ConformanceReport>('conformance-report.schema.json');
  assert.ok(validate(report), describeSchemaErrors(validate.errors).join('\n'));
  const clean = mkdtempSync(join(tmpdir(), 'report-files-'));
  writeReports(report, { exchanges }, clean);
  const scanned = scanDirectory(clean, forms);
  assert.equal(scanned.filesScanned, Object.keys(REPORT_FILES).length);
  assert.deepEqual(scanned.findings, []);
  // The redaction removed: a KeyNamer that knows no key.
  const leaky = sampleRun(new KeyNamer([]));
  const dirty = mkdtempSync(join(tmpdir(), 'report-files-leaky-'));
  writeReports(leaky.report, { exchanges: leaky.exchanges }, dirty);
  const leaked = new Set(
    scanDirectory(dirty, forms).findings.map((finding) => finding.where.split('/').at(-1)),
  );
  assert.deepEqual([...leaked].sort(), Object.values(REPORT_FILES).sort(), 'each file would show a key');
  assert.ok(
    readFileSync(join(dirty, REPORT_FILES.har), 'utf8').includes(
      `Bearer ${SAMPLE_KEYS.STAGING_FULL_ACCESS_KEY}`,
    ),
  );
});

test('retries and the run’s traffic show in every format: JSON, Markdown, HTML, JUnit, console and HAR', () => {
  const { report, exchanges } = sampleRun();
  const line =
    'the target rate-limited 1 request; 1 request sent again after 1 s of waiting in all; the run paced itself to 4.1 requests/s';
  assert.deepEqual(report.traffic, {
    rateLimited: 1,
    unavailable: 0,
    retries: 1,
    waitedSeconds: 1,
    pacedRequestsPerSecond: 4.1,
  });
  const rule = report.rules.find((candidate) => candidate.id === 'KEY-INVALID-401');
  assert.equal(rule?.retries, 1);
  assert.deepEqual(
    rule?.evidence?.[0]?.attempts?.map(({ status, retriedAfterMs }) => [status, retriedAfterMs]),
    [[429, 1000]],
  );
  assert.equal(report.rules.filter((candidate) => candidate.retries !== undefined).length, 1);

  const markdown = renderMarkdown(report);
  assert.ok(markdown.includes(`| Traffic | ${line} |`), 'the Markdown summary table');
  assert.match(markdown, /\| KEY-INVALID-401 \| HTTP \| warning \(1 retry\) \|/);
  assert.match(markdown, /earlier transient answers, not judged: 429, waited 1000 ms/);

  const html = renderHtml(report, { harEntries: new Map() });
  assert.ok(html.includes(`<dt>Traffic</dt><dd>${line}</dd>`), 'the HTML banner');
  assert.ok(html.includes('<span class="muted">1 retry</span>'), 'the HTML rule table');

  const { xml, cases } = parsedJunit(report);
  assert.ok(xml.includes(`<property name="traffic" value="${line}"/>`), 'a property of the run');
  const junitCase = cases.get('HTTP KEY-INVALID-401') as {
    properties: { property: { name: string; value: unknown }[] };
  };
  assert.ok(
    junitCase.properties.property.some(
      (property) => property.name === 'retries' && String(property.value) === '1',
    ),
  );

  const console = summary(report, { selected: new Set(), reportFiles: [], painter: paint(false) });
  assert.ok(console.includes(`Traffic: ${line}.`));

  const comments = buildHar(exchanges, report.suite).log.entries.map((entry) => entry.comment);
  assert.ok(
    comments.some((comment) => comment.includes('transient answer, not judged: sent again after 1000 ms')),
  );
  assert.ok(comments.some((comment) => /try 2 \(earlier tries: /.test(comment)));
});

test('a run over HTTP/1.1 and HTTP/2: every format names the verdict per protocol, evidence its protocol', () => {
  const { report, exchanges } = sampleRun();
  const overBoth: ConformanceReport = {
    ...report,
    protocols: [
      { name: 'HTTP/1.1', verdict: 'CONFORMANT' },
      { name: 'HTTP/2', verdict: 'NOT CONFORMANT' },
    ],
    rules: report.rules.map((rule) =>
      rule.id === SAMPLE_FAILING_RULE
        ? {
            ...rule,
            protocols: { 'HTTP/1.1': 'pass', 'HTTP/2': 'fail' },
            evidence: (rule.evidence ?? []).map((evidence) => ({ ...evidence, protocol: 'HTTP/2' })),
          }
        : rule,
    ),
  };
  const line = 'HTTP/1.1 CONFORMANT; HTTP/2 NOT CONFORMANT';
  const markdown = renderMarkdown(overBoth);
  assert.ok(markdown.includes(`| Protocols | ${line} |`));
  assert.match(
    markdown,
    new RegExp(`\\| ${SAMPLE_FAILING_RULE} \\| MUST \\| FAIL \\(HTTP\\/1\\.1 pass, HTTP\\/2 FAIL\\) \\|`),
  );
  assert.match(markdown, /GET \S+ over HTTP\/2/);
  const html = renderHtml(overBoth, { harEntries: new Map() });
  assert.ok(html.includes(`<dt>Protocols</dt><dd>${line}</dd>`));
  // The rules table leads with the failure, and its row says over which protocol it failed.
  const firstRow = /<tbody>\s*(<tr [^]*?<\/tr>)/.exec(html.slice(html.indexOf('id="rule-table"')))?.[1] ?? '';
  assert.ok(firstRow.includes(`data-rule="${SAMPLE_FAILING_RULE}"`), firstRow);
  assert.match(
    firstRow,
    /<td class="per-protocol"><span class="protocol">HTTP\/1\.1 <span class="badge o-pass">pass<\/span><\/span> <span class="protocol">HTTP\/2 <span class="badge o-fail">FAIL<\/span><\/span><\/td>/,
  );
  assert.ok(parsedJunit(overBoth).xml.includes(`<property name="protocols" value="${line}"/>`));
  assert.ok(
    summary(overBoth, { selected: new Set(), reportFiles: [], painter: paint(false) }).includes(
      `Protocols: ${line}.`,
    ),
  );
  const evidence = overBoth.rules.find((rule) => rule.id === SAMPLE_FAILING_RULE)?.evidence?.[0];
  assert.ok(
    evidence && curlCommand(evidence, overBoth.target).startsWith('curl --include --max-time 15 --http2 '),
  );
  // What curl cannot send as the suite did is said, at the end of the line, never left unsaid.
  assert.doesNotMatch(curlCommand(evidence, overBoth.target), /#/);
  const hostBeside = {
    ...evidence,
    requestHeaders: [
      { name: 'Host', value: 'acme.api.localhost:8443' },
      { name: 'host', value: 'globex.api.localhost:8443' },
    ],
  };
  assert.match(
    curlCommand(hostBeside, overBoth.target),
    / {2}# not the same request: curl sends the host once/,
  );
  const split = {
    ...evidence,
    note: 'two authorization fields; header block in 2 frames (HEADERS, CONTINUATION)',
  };
  assert.match(
    curlCommand(split, overBoth.target),
    /# not the same request: curl sends the header block in one frame/,
  );
  const h2c = { ...evidence, url: 'http://acme.api.localhost:8080/v1/customers' };
  assert.match(curlCommand(h2c, overBoth.target), /^curl --include --max-time 15 --http2-prior-knowledge /);

  const overH2 = exchanges.map(({ madeBy, exchange }) => ({
    madeBy,
    exchange: { ...exchange, request: { ...exchange.request, httpVersion: 'HTTP/2' as const } },
  }));
  for (const entry of buildHar(overH2, report.suite).log.entries) {
    assert.equal(entry.request.httpVersion, 'HTTP/2');
    assert.equal(entry.response.httpVersion, 'HTTP/2');
  }
});
