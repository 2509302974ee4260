// The set-up failure of a SETUP ERROR report in one sentence each, for the renderers: the
// preflight's first problem of the base URL under test (conformance/deployment/preflight.ts).
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { describeProblem } from '../deployment/preflight.ts';

export interface SetupErrorText {
  stage: string;
  url: string;
  message: string;
  fix: string;
}

export function setupErrorOf(report: ConformanceReport): SetupErrorText | undefined {
  if (report.verdict !== 'SETUP ERROR') return undefined;
  const [first, ...others] = report.setupProblems ?? [];
  if (!first)
    return { stage: 'preflight', url: report.target.baseUrl, message: 'the preflight failed', fix: '' };
  const more = others.map(describeProblem).join(' ');
  return {
    stage: first.stage,
    url: first.url,
    message: `${first.problem}${more ? `. Also: ${more}` : ''}`,
    fix: first.fix,
  };
}
