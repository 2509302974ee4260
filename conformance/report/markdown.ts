// The conformance report as Markdown, for a person: the verdict first, then every rule, then the
// evidence of each failure and warning.
import type { ConformanceReport, Evidence, RuleResult } from '../../schemas/generated/conformance-report.ts';
import { curlCommand } from './curl.ts';
import { answerLine } from './evidence-text.ts';
import { requestLine } from '../requests/exchange-record.ts';
import { retriesText, trafficLine } from './traffic-summary.ts';
import { protocolsLine } from './outcomes-by-protocol.ts';
import { reachLines } from './reach.ts';
import { provenanceFields } from './provenance.ts';
import { scopeLine, verdictWithScope } from './scope.ts';

export const VERDICT_LABEL: Record<RuleResult['verdict'], string> = {
  pass: 'pass',
  fail: 'FAIL',
  warning: 'warning',
  'not-evaluated': 'not evaluated',
  'not-applicable': 'not applicable',
  error: 'ERROR',
};

export function renderMarkdown(report: ConformanceReport): string {
  const lines = [
    `# Conformance report: ${escapeCell(report.target.name)}`,
    '',
    `**Verdict: ${verdictWithScope(report)}**`,
    '',
    `| | |`,
    `|---|---|`,
    `| Target | ${escapeCell(report.target.name)} (${report.target.mode}), ${escapeCell(report.target.baseUrl)} |`,
    `| Profile | ${report.profile} |`,
    ...provenanceFields(report).map(([name, value]) => `| ${name} | ${escapeCell(value)} |`),
    `| Spec | ${report.spec.file}, sha256 ${report.spec.sha256} |`,
    `| Started | ${report.startedAt} |`,
    `| Duration | ${(report.durationMs / 1000).toFixed(1)} s |`,
    ...(report.shard ? [`| Shard | ${report.shard} |`] : []),
    ...(report.scope ? [`| Scope | ${escapeCell(scopeLine(report) ?? '')} |`] : []),
    ...(report.scope?.vendorsWord
      ? [`| Vendor's word | ${escapeCell(report.scope.vendorsWord.join('; '))} |`]
      : []),
    ...(report.protocols ? [`| Protocols | ${protocolsLine(report) ?? ''} |`] : []),
    ...(report.reach ? [`| Reach | ${escapeCell(reachLines(report.reach).join(' '))} |`] : []),
    ...(report.traffic ? [`| Traffic | ${escapeCell(trafficLine(report.traffic) ?? '')} |`] : []),
    `| Rules | ${report.summary.pass} pass, ${report.summary.fail} fail, ${report.summary.warning} warning, ${report.summary.notEvaluated} not evaluated, ${report.summary.notApplicable ?? 0} not applicable, ${report.summary.error} error |`,
    ...setupSection(report),
    '',
    '## Rules',
    '',
    '| Rule | Level | Verdict | Source | Statement |',
    '|---|---|---|---|---|',
    ...report.rules.map(
      (rule) =>
        `| ${rule.id} | ${rule.level} | ${VERDICT_LABEL[rule.verdict]}${
          rule.protocols && rule.verdict !== 'pass'
            ? ` (${Object.entries(rule.protocols)
                .map(([name, verdict]) => `${name} ${VERDICT_LABEL[verdict]}`)
                .join(', ')})`
            : ''
        }${rule.retries ? ` (${retriesText(rule.retries)})` : ''} | ${escapeCell(rule.source)} | ${escapeCell(rule.statement)} |`,
    ),
  ];
  const noteworthy = report.rules.filter((rule) => rule.verdict !== 'pass');
  if (noteworthy.length > 0) lines.push('', '## Details', '');
  for (const rule of noteworthy) {
    lines.push(`### ${rule.id} — ${VERDICT_LABEL[rule.verdict]} (${rule.level})`, '', rule.message ?? '', '');
    for (const evidence of rule.evidence ?? []) lines.push(...renderEvidence(evidence, report.target), '');
  }
  return `${lines.join('\n')}\n`;
}

function setupSection(report: ConformanceReport): string[] {
  const problems = report.setupProblems ?? [];
  if (problems.length === 0) return [];
  const heading =
    report.verdict === 'SETUP ERROR'
      ? 'The preflight could not reach the target, so no rule was run. Nothing is known about the target yet: fix the set-up and run again.'
      : 'These declared URLs could not be reached; the rules that need them are not evaluated.';
  return [
    '',
    '## Set-up',
    '',
    heading,
    '',
    '| Stage | URL | Problem | Fix |',
    '|---|---|---|---|',
    ...problems.map(
      (problem) =>
        `| ${problem.stage} | ${escapeCell(`${problem.field ? `${problem.field} ` : ''}${problem.url}`)} | ${escapeCell(problem.problem)} | ${escapeCell(problem.fix)} |`,
    ),
  ];
}

function renderEvidence(evidence: Evidence, target: ConformanceReport['target']): string[] {
  const request = requestLine(evidence);
  const answer = answerLine(evidence);
  const sent = (evidence.requestHeaders ?? []).map(({ name, value }) => `  - sent \`${name}: ${value}\``);
  const headers = Object.entries(evidence.headers ?? {}).map(([name, value]) => `  - ${name}: ${value}`);
  const body = evidence.bodyExcerpt
    ? ['  - body:', '', '    ```', `    ${evidence.bodyExcerpt.replace(/\n/g, '\n    ')}`, '    ```']
    : [];
  const reproduce = ['  - reproduce:', '', '    ```sh', `    ${curlCommand(evidence, target)}`, '    ```'];
  return [`- \`${request}\` → ${answer}`, ...sent, ...headers, ...body, ...reproduce];
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
