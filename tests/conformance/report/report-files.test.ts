// What every report file of a run shows alike, from records made in-process (sample-run.ts): the
// retries and the run's traffic, and over HTTP/1.1 and HTTP/2 the verdict per protocol, in JSON,
// Markdown, HTML, JUnit, the console and the HAR. Each format's own reading: report-formats.test.ts;
// keys shown as their variables: shown-keys.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { curlCommand } from '../../../conformance/report/curl.ts';
import { buildHar } from '../../../conformance/report/har.ts';
import { renderHtml } from '../../../conformance/report/html.ts';
import { renderMarkdown } from '../../../conformance/report/markdown.ts';
import { paint, summary } from '../../../conformance/report/console.ts';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { sampleRun } from './sample-run.ts';
import { SAMPLE_FAILING_RULE } from '../../support/sample-failure.ts';
import { parsedJunit } from '../../support/parsed-junit.ts';

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
