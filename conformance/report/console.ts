// What the conformance reporter prints: a line per rule as it ends, then the verdict table, the
// rules that need attention and the verdict line. Colour only on a terminal: NO_COLOR or
// FORCE_COLOR=0 turn it off, FORCE_COLOR turns it on (the rules Playwright's own output follows);
// piped or redirected output gets no escape codes at all.
import type { ConformanceReport, RuleResult } from '../../schemas/generated/conformance-report.ts';
import { VERDICT_LABEL } from './markdown.ts';
import { setupErrorOf } from './setup-error.ts';
import { trafficLine } from './traffic-summary.ts';
import { protocolsLine } from './outcomes-by-protocol.ts';
import { reachLines } from './reach.ts';
import { scopeLine, verdictWithScope } from './scope.ts';
import { type Environment } from '../env.ts';

export interface Paint {
  verdict(verdict: RuleResult['verdict'], text: string): string;
  overall(verdict: ConformanceReport['verdict'], text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

/** NO_COLOR and FORCE_COLOR are the terminal's convention, read where output is written: not run settings. */
export function colourWanted(stream: { isTTY?: boolean }, env: Environment): boolean {
  const force = env.FORCE_COLOR;
  if (force === '0' || force === 'false' || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return false;
  if (force !== undefined) return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

const SGR = { red: 31, green: 32, yellow: 33, grey: 90, bold: 1 } as const;
const VERDICT_COLOUR: Record<RuleResult['verdict'], keyof typeof SGR> = {
  pass: 'green',
  fail: 'red',
  error: 'red',
  warning: 'yellow',
  'not-evaluated': 'grey',
  'not-applicable': 'grey',
};
const OVERALL_COLOUR: Record<ConformanceReport['verdict'], keyof typeof SGR> = {
  CONFORMANT: 'green',
  'NOT CONFORMANT': 'red',
  INCOMPLETE: 'yellow',
  'SETUP ERROR': 'red',
};

export function paint(enabled: boolean): Paint {
  const style =
    (code: number) =>
    (text: string): string =>
      enabled ? `\u001b[${code}m${text}\u001b[0m` : text;
  return {
    verdict: (verdict, text) => style(SGR[VERDICT_COLOUR[verdict]])(text),
    overall: (verdict, text) => style(SGR.bold)(style(SGR[OVERALL_COLOUR[verdict]])(text)),
    bold: style(SGR.bold),
    dim: style(SGR.grey),
  };
}

export function ruleLine(
  rule: Pick<RuleResult, 'id' | 'level' | 'verdict'>,
  painter: Paint,
  message?: string,
): string {
  const label = painter.verdict(rule.verdict, VERDICT_LABEL[rule.verdict].padEnd(13));
  return `  ${label} ${rule.level.padEnd(8)} ${rule.id}${message !== undefined ? `: ${message}` : ''}`;
}

export interface SummaryOptions {
  /** Rules the run selected (all of them without --grep or --shard). */
  selected: ReadonlySet<string>;
  /** The files written, the first with its directory. */
  reportFiles: readonly string[];
  painter: Paint;
}

export function summary(report: ConformanceReport, options: SummaryOptions): string {
  const { painter } = options;
  const levels = ['MUST', 'HTTP', 'ADVISORY'] as const;
  const verdicts = ['pass', 'fail', 'warning', 'not-evaluated', 'not-applicable', 'error'] as const;
  const header = `  ${'level'.padEnd(10)}${verdicts.map((verdict) => VERDICT_LABEL[verdict].padStart(15)).join('')}`;
  const rows = levels.map(
    (level) =>
      `  ${level.padEnd(10)}${verdicts
        .map((verdict) => {
          const count = report.rules.filter(
            (rule) => rule.level === level && rule.verdict === verdict,
          ).length;
          const cell = String(count).padStart(15);
          return count > 0 && verdict !== 'pass' ? painter.verdict(verdict, cell) : cell;
        })
        .join('')}`,
  );
  const unselected = report.rules.filter((rule) => !options.selected.has(rule.id));
  const attention = report.rules
    .filter((rule) => rule.verdict !== 'pass' && options.selected.has(rule.id))
    .map((rule) => ruleLine(rule, painter, rule.message ?? ''));
  const notRun =
    unselected.length > 0
      ? [
          painter.dim(
            `  ${unselected.length} other rule${unselected.length === 1 ? '' : 's'} not run in this selection (--grep, --shard): not evaluated.`,
          ),
        ]
      : [];
  const setupError = setupErrorOf(report);
  const setup = setupError
    ? [
        '',
        `  Setup failed (${setupError.stage}${setupError.url ? `, ${setupError.url}` : ''}): ${setupError.message}`,
        ...(setupError.fix ? [`  Fix: ${setupError.fix}`] : []),
      ]
    : [];
  const [first, ...others] = options.reportFiles;
  return [
    '',
    header,
    ...rows,
    ...(attention.length + notRun.length > 0 ? ['', ...attention, ...notRun] : []),
    ...setup,
    '',
    ...(report.protocols ? [`Protocols: ${protocolsLine(report) ?? ''}.`] : []),
    ...(report.reach ? [`Reach: ${reachLines(report.reach).join(' ')}`] : []),
    ...(report.traffic ? [`Traffic: ${trafficLine(report.traffic) ?? ''}.`] : []),
    ...(report.scope ? [`Scope: ${scopeLine(report) ?? ''}`] : []),
    `${painter.overall(report.verdict, `VERDICT: ${verdictWithScope(report)}`)} (${report.target.name}, profile ${report.profile})`,
    `Reports: ${[first, ...others].filter(Boolean).join(', ')}`,
    '',
  ].join('\n');
}
