// Side by side: several conformance reports (implementations, versions, shards of a matrix) as
// one rule × target matrix, in Markdown or HTML.
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { RULES } from '../catalog/rules.ts';
import { VERDICT_LABEL } from './markdown.ts';
import { verdictWithScope } from './scope.ts';

export interface Matrix {
  columns: string[];
  /** Each report's verdict with its scope ("CONFORMANT · HTTP/1.1 only" for a partial run). */
  verdicts: string[];
  /** What each report tested with and against: kit, rule catalog, each host's certificate. */
  provenance: { label: string; cells: string[]; differs: boolean }[];
  rows: { id: string; level: string; cells: string[] }[];
}

const NOT_RECORDED = 'not recorded';

/**
 * Two reports can only be read side by side knowing whether they ran the same rules against the
 * same deployment: a different catalog digest or certificate fingerprint is shown, and named.
 */
function provenanceRows(reports: readonly ConformanceReport[]): Matrix['provenance'] {
  const row = (label: string, cell: (report: ConformanceReport) => string): Matrix['provenance'][number] => {
    const cells = reports.map(cell);
    return { label, cells, differs: new Set(cells).size > 1 };
  };
  const fields = [...new Set(reports.flatMap((report) => (report.tls ?? []).map((tls) => tls.field)))];
  return [
    row('Kit', (report) =>
      [
        report.suite.version,
        report.suite.commit?.slice(0, 12),
        report.suite.sourceModified ? 'modified' : undefined,
      ]
        .filter(Boolean)
        .join(' '),
    ),
    row('Rule catalog (sha256)', (report) => report.catalog?.sha256.slice(0, 16) ?? NOT_RECORDED),
    ...fields.map((field) =>
      row(`Certificate of ${field} (SHA-256)`, (report) => {
        const tls = report.tls?.find((candidate) => candidate.field === field);
        return tls ? `${tls.fingerprint256.slice(0, 23)}…` : NOT_RECORDED;
      }),
    ),
  ];
}

/** The sentence under a matrix whose reports tested different things, or nothing. */
export function provenanceWarning(matrix: Matrix): string | undefined {
  const differing = matrix.provenance.filter((row) => row.differs).map((row) => row.label);
  return differing.length > 0
    ? `These reports differ in what was tested: ${differing.join('; ')}. A different catalog means different rules; a different certificate, possibly a different deployment.`
    : undefined;
}

/** A column's default label: target, profile and start time, numbered if two are still alike. */
export function defaultLabels(reports: readonly ConformanceReport[]): string[] {
  const labels = reports.map(
    (report) =>
      `${report.target.name} (${report.profile}, ${report.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')})`,
  );
  return labels.map((label, index) =>
    labels.filter((other) => other === label).length > 1
      ? `${label} #${labels.slice(0, index + 1).filter((other) => other === label).length}`
      : label,
  );
}

/** `labels`, when given, name the columns in the order of `reports`. */
export function comparisonMatrix(
  reports: readonly ConformanceReport[],
  labels: readonly string[] = defaultLabels(reports),
): Matrix {
  if (labels.length !== reports.length)
    throw new Error(`${labels.length} labels for ${reports.length} reports: give one --label per report.`);
  const catalogOrder = new Map<string, number>(RULES.map((rule, index) => [rule.id, index]));
  const ids = [...new Set(reports.flatMap((report) => report.rules.map((rule) => rule.id)))].sort(
    (a, b) => (catalogOrder.get(a) ?? Infinity) - (catalogOrder.get(b) ?? Infinity) || a.localeCompare(b),
  );
  return {
    columns: [...labels],
    verdicts: reports.map(verdictWithScope),
    provenance: provenanceRows(reports),
    rows: ids.map((id) => {
      const level = reports.flatMap((report) => report.rules).find((rule) => rule.id === id)?.level ?? '';
      const cells = reports.map((report) => {
        const rule = report.rules.find((candidate) => candidate.id === id);
        return rule ? VERDICT_LABEL[rule.verdict] : '—';
      });
      return { id, level, cells };
    }),
  };
}

export function matrixMarkdown(matrix: Matrix): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  return [
    '# Conformance comparison',
    '',
    `| Rule | Level | ${matrix.columns.map(cell).join(' | ')} |`,
    `|---|---|${matrix.columns.map(() => '---').join('|')}|`,
    `| **Verdict** | | ${matrix.verdicts.map((verdict) => `**${verdict}**`).join(' | ')} |`,
    ...matrix.provenance.map(
      (row) =>
        `| *${row.label}*${row.differs ? ' **differs**' : ''} | | ${row.cells.map(cell).join(' | ')} |`,
    ),
    ...matrix.rows.map((row) => `| ${row.id} | ${row.level} | ${row.cells.join(' | ')} |`),
    '',
    ...(provenanceWarning(matrix) ? [`**${provenanceWarning(matrix)}**`, ''] : []),
    '"—": the rule is not in that report (an older catalog).',
    '',
  ].join('\n');
}

export function matrixHtml(matrix: Matrix): string {
  const escape = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  const verdictClass = (text: string): string => text.toLowerCase().replace(/[^a-z]+/g, '-');
  const rows = matrix.rows
    .map(
      (row) =>
        `<tr><th scope="row">${escape(row.id)}</th><td>${escape(row.level)}</td>${row.cells
          .map((text) => `<td class="${verdictClass(text)}">${escape(text)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  const provenance = matrix.provenance
    .map(
      (row) =>
        `<tr class="${row.differs ? 'differs' : 'same'}"><th scope="row"><em>${escape(row.label)}</em>${row.differs ? ' <strong>differs</strong>' : ''}</th><td></td>${row.cells
          .map((text) => `<td><code>${escape(text)}</code></td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  const warning = provenanceWarning(matrix);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Conformance comparison</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; }
.pass { background: #e6f4ea; } .fail, .error { background: #fce8e6; font-weight: bold; }
.warning { background: #fef7e0; } .not-evaluated { background: #f1f3f4; }
.differs { background: #fce8e6; }
</style></head><body>
<h1>Conformance comparison</h1>
<table>
<thead><tr><th>Rule</th><th>Level</th>${matrix.columns.map((column) => `<th>${escape(column)}</th>`).join('')}</tr></thead>
<tbody>
<tr><th scope="row">Verdict</th><td></td>${matrix.verdicts.map((verdict) => `<td><strong>${escape(verdict)}</strong></td>`).join('')}</tr>
${provenance}
${rows}
</tbody></table>
${warning ? `<p class="differs"><strong>${escape(warning)}</strong></p>` : ''}
<p>"—": the rule is not in that report (an older catalog).</p>
</body></html>
`;
}
