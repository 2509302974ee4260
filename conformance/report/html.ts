// conformance.html: the report a QA lead opens, leading with what needs action. The verdict first,
// with its scope (protocols checked and offered, selection; "CONFORMANT · HTTP/1.1 only" for a
// partial run), target, profile, suite version and date, the certificates folded under it; the
// counts by level and outcome; the rules filterable by outcome and level, failures and errors
// first with their outcome over each protocol, passes folded (the pass box starts unticked when
// anything needs action); and for each failure, warning and error its evidence: what was sent
// (keys as their variable names), what came back, what was expected instead, and a curl command
// that does it again. One file, nothing loaded from anywhere.
import type { ConformanceReport, Evidence, RuleResult } from '../../schemas/generated/conformance-report.ts';
import { curlCommand } from './curl.ts';
import { answerLine } from './evidence-text.ts';
import { FILTER_SCRIPT, STYLE } from './html-assets.ts';
import { VERDICT_LABEL } from './markdown.ts';
import { retriesText, trafficLine } from './traffic-summary.ts';
import { protocolsLine } from './outcomes-by-protocol.ts';
import { reachLines } from './reach.ts';
import { setupErrorOf } from './setup-error.ts';
import { provenanceFields } from './provenance.ts';
import { scopeLine, verdictWithScope } from './scope.ts';

const LEVELS = ['MUST', 'HTTP', 'ADVISORY'] as const;
const OUTCOMES = ['fail', 'error', 'warning', 'not-evaluated', 'not-applicable', 'pass'] as const;
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

export interface HtmlOptions {
  /** Position (1-based) of each exchange id in exchanges.har. */
  harEntries?: ReadonlyMap<string, number>;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const slug = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const badge = (verdict: RuleResult['verdict']): string =>
  `<span class="badge o-${verdict}">${escapeHtml(VERDICT_LABEL[verdict])}</span>`;

export function renderHtml(report: ConformanceReport, options: HtmlOptions = {}): string {
  const order = outcomesOf(report);
  const noteworthy = report.rules
    .filter((rule) => rule.verdict !== 'pass')
    .sort((a, b) => order.indexOf(a.verdict) - order.indexOf(b.verdict));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`${verdictWithScope(report)}: ${report.target.name} — conformance report`)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${banner(report)}
<h2>Counts</h2>
${counts(report)}
<h2 id="rules">Rules</h2>
${filters(report)}
${rulesTable(report)}
${noteworthy.length > 0 ? `<h2 id="details">Evidence</h2>\n${noteworthy.map((rule) => detail(report, rule, options)).join('\n')}` : ''}
<p class="muted">Also written: conformance.json, conformance.md, junit.xml, exchanges.har (every exchange of the run; import it in the browser's dev tools, Network panel) and html/ (Playwright's report, for debugging the suite itself).</p>
</main>
<script>${FILTER_SCRIPT}</script>
</body>
</html>
`;
}

function banner(report: ConformanceReport): string {
  // The certificates take a few lines each: folded, with the other fields in view.
  const provenance = provenanceFields(report);
  const isCertificate = ([name]: [string, string]): boolean => name.startsWith('Certificate of ');
  const certificates = provenance.filter(isCertificate);
  const fields: [string, string][] = [
    ['Target', `${report.target.name} — ${report.target.baseUrl} (${report.target.mode})`],
    ...(report.scope ? [['Scope', scopeLine(report) ?? ''] as [string, string]] : []),
    ...(report.scope?.vendorsWord
      ? [["Vendor's word", report.scope.vendorsWord.join('; ')] as [string, string]]
      : []),
    ['Profile', report.profile],
    ...provenance.filter((field) => !isCertificate(field)),
    ['Spec', `${report.spec.file}, sha256 ${report.spec.sha256.slice(0, 12)}…`],
    [
      'Date',
      `${report.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}, ${(report.durationMs / 1000).toFixed(1)} s`,
    ],
    ...(report.shard ? [['Shard', report.shard] as [string, string]] : []),
    ...(report.protocols ? [['Protocols', protocolsLine(report) ?? ''] as [string, string]] : []),
    ...(report.reach ? [['Reach', reachLines(report.reach).join(' ')] as [string, string]] : []),
    ...(report.traffic ? [['Traffic', trafficLine(report.traffic) ?? ''] as [string, string]] : []),
  ];
  const setupError = setupErrorOf(report);
  const setup = setupError
    ? `<div class="setup" role="alert"><h3>The run could not start checking: ${escapeHtml(setupError.stage)}</h3>
<p>${escapeHtml(setupError.message)}</p>
${setupError.url ? `<p>URL: <code>${escapeHtml(setupError.url)}</code></p>` : ''}
${setupError.fix ? `<p><strong>Fix:</strong> ${escapeHtml(setupError.fix)}</p>` : ''}</div>`
    : '';
  return `<header class="banner v-${slug(report.verdict)}" role="banner">
<h1>Conformance report</h1>
<div class="verdict" id="verdict">${escapeHtml(verdictWithScope(report))}</div>
<dl>${fields.map(([name, value]) => `<dt>${name}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>
${
  certificates.length > 0
    ? `<details class="certificates" id="certificates"><summary>Certificates of ${certificates.length} host${certificates.length === 1 ? '' : 's'}</summary>
<dl>${certificates.map(([name, value]) => `<dt>${escapeHtml(name.replace('Certificate of ', ''))}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl></details>`
    : ''
}
</header>
${setup}`;
}

function counts(report: ConformanceReport): string {
  const count = (level: string, verdict: string): number =>
    report.rules.filter((rule) => rule.level === level && rule.verdict === verdict).length;
  const head = OUTCOMES.map((verdict) => `<th scope="col">${badge(verdict)}</th>`).join('');
  const rows = LEVELS.map(
    (level) =>
      `<tr><th scope="row">${level}</th>${OUTCOMES.map((verdict) => `<td data-count="${level}-${verdict}">${count(level, verdict)}</td>`).join('')}<td>${report.rules.filter((rule) => rule.level === level).length}</td></tr>`,
  ).join('\n');
  return `<table class="counts" id="counts"><thead><tr><th>Level</th>${head}<th scope="col">all</th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}

function filters(report: ConformanceReport): string {
  const box = (name: string, value: string, label: string, count: number, checked = true): string =>
    `<label><input type="checkbox" name="${name}" value="${value}"${checked ? ' checked' : ''}> ${label} (${count})</label>`;
  // Passes are folded when anything else is there to act on.
  const foldPasses = report.rules.some((rule) => rule.verdict !== 'pass');
  const outcomeBoxes = outcomesOf(report)
    .map((verdict) =>
      box(
        'verdict',
        verdict,
        badge(verdict),
        report.rules.filter((rule) => rule.verdict === verdict).length,
        !(foldPasses && verdict === 'pass'),
      ),
    )
    .join('');
  const levelBoxes = LEVELS.map((level) =>
    box('level', level, level, report.rules.filter((rule) => rule.level === level).length),
  ).join('');
  return `<form class="filters" id="filters">
<fieldset><legend>Outcome</legend>${outcomeBoxes}</fieldset>
<fieldset><legend>Level</legend>${levelBoxes}</fieldset>
<span class="shown" id="shown" aria-live="polite"></span>
</form>`;
}

/** The outcomes in the order they need action: the known ones, then any other, passes last. */
function outcomesOf(report: ConformanceReport): RuleResult['verdict'][] {
  const known: readonly RuleResult['verdict'][] = OUTCOMES.filter((verdict) => verdict !== 'pass');
  const others = [...new Set(report.rules.map((rule) => rule.verdict))].filter(
    (verdict) => !known.includes(verdict) && verdict !== 'pass',
  );
  return [...known, ...others, 'pass'];
}

/** Each protocol's outcome of a rule: over several, each its own; over one, the rule's. */
function perProtocol(report: ConformanceReport, rule: RuleResult): string {
  const protocols =
    rule.protocols ??
    (report.scope?.protocolsChecked.length === 1
      ? { [report.scope.protocolsChecked[0] ?? '']: rule.verdict }
      : undefined);
  if (!protocols) return '';
  return Object.entries(protocols)
    .map(([name, verdict]) => `<span class="protocol">${escapeHtml(name)} ${badge(verdict)}</span>`)
    .join(' ');
}

function rulesTable(report: ConformanceReport): string {
  const order = outcomesOf(report);
  const rows = [...report.rules]
    .sort((a, b) => order.indexOf(a.verdict) - order.indexOf(b.verdict))
    .map((rule) => {
      const id =
        rule.verdict === 'pass'
          ? escapeHtml(rule.id)
          : `<a href="#rule-${escapeHtml(rule.id)}">${escapeHtml(rule.id)}</a>`;
      return `<tr data-verdict="${rule.verdict}" data-level="${rule.level}" data-rule="${escapeHtml(rule.id)}"><td class="rule-id">${id}</td><td>${rule.level}</td><td>${badge(rule.verdict)}${rule.retries ? ` <span class="muted">${retriesText(rule.retries)}</span>` : ''}</td><td class="per-protocol">${perProtocol(report, rule)}</td><td>${escapeHtml(rule.statement)}<div class="muted">${escapeHtml(rule.source)}</div></td></tr>`;
    })
    .join('\n');
  return `<table class="rules" id="rule-table"><thead><tr><th>Rule</th><th>Level</th><th>Outcome</th><th>Per protocol</th><th>Statement</th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}

const WHAT_HAPPENED: Record<RuleResult['verdict'], string> = {
  fail: 'Expected vs got',
  warning: 'Expected vs got (does not fail the run under this profile)',
  error: 'Could not run',
  'not-evaluated': 'Why',
  'not-applicable': 'Why',
  pass: '',
};

function detail(report: ConformanceReport, rule: RuleResult, options: HtmlOptions): string {
  const evidence = rule.evidence ?? [];
  return `<section class="detail o-${rule.verdict}-b" id="rule-${escapeHtml(rule.id)}" data-verdict="${rule.verdict}" data-level="${rule.level}">
<h3><span class="rule-id">${escapeHtml(rule.id)}</span> ${badge(rule.verdict)} <span class="muted">${rule.level}</span></h3>
<p>${escapeHtml(rule.statement)}</p>
<p class="expected"><span class="muted">${WHAT_HAPPENED[rule.verdict]}:</span> ${escapeHtml(rule.message ?? '')}</p>
${evidence.map((item, index) => exchange(report, item, index, evidence.length, options)).join('\n')}
</section>`;
}

function exchange(
  report: ConformanceReport,
  evidence: Evidence,
  index: number,
  total: number,
  options: HtmlOptions,
): string {
  const harEntry = evidence.exchange ? options.harEntries?.get(evidence.exchange) : undefined;
  const pointer = evidence.exchange
    ? `<p class="muted har">exchanges.har: ${harEntry !== undefined ? `entry ${harEntry}, ` : ''}<code>_id ${escapeHtml(evidence.exchange)}</code></p>`
    : '';
  const requestHeaders = (evidence.requestHeaders ?? []).map(({ name, value }) => [name, value] as const);
  const answerHeaders = Object.entries(evidence.headers ?? {});
  return `<div class="exchange">
<h4>Exchange${total > 1 ? ` ${index + 1} of ${total}` : ''}${evidence.note ? `: ${escapeHtml(evidence.note)}` : ''}</h4>
<p><strong>Request</strong> <code>${escapeHtml(`${evidence.method} ${evidence.url}`)}</code></p>
${headerTable(requestHeaders)}
${evidence.requestBody !== undefined ? `<pre>${escapeHtml(evidence.requestBody)}</pre>` : ''}
<p><strong>Answer</strong> <code>${escapeHtml(answerLine(evidence))}</code></p>
${headerTable(answerHeaders)}
${evidence.bodyExcerpt ? `<pre class="body">${escapeHtml(evidence.bodyExcerpt)}</pre>` : ''}
<p><strong>Reproduce</strong> <span class="muted">(export the target's key variables first)</span></p>
<pre class="curl">${escapeHtml(curlCommand(evidence, report.target))}</pre>
${pointer}
</div>`;
}

function headerTable(headers: readonly (readonly [string, string])[]): string {
  if (headers.length === 0) return '';
  return `<table class="headers">${headers.map(([name, value]) => `<tr><td>${escapeHtml(name)}</td><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`;
}
