// `npm run conformance -- --list [--grep …]`: the rules a run would check, one a line, and nothing
// written — the reports of the last run stay as they are (conformance/run/run.ts puts this reporter
// in place of the configured ones).
import type { Reporter, Suite } from '@playwright/test/reporter';
import { ANNOTATION } from './annotations.ts';
import { RULES, ruleById, type RuleId } from '../catalog/rules.ts';

export default class ListReporter implements Reporter {
  printsToStdio(): boolean {
    return true;
  }

  onBegin(_config: unknown, suite: Suite): void {
    const ids = suite
      .allTests()
      .map((test) => test.annotations.find((annotation) => annotation.type === ANNOTATION.rule)?.description)
      .filter((id): id is string => id !== undefined);
    for (const id of ids) {
      const rule = ruleById(id as RuleId);
      console.log(`  ${rule.level.padEnd(8)} ${rule.id}: ${rule.statement}`);
    }
    console.log(`\n${ids.length} of ${RULES.length} rules selected. Nothing was run; no report was written.`);
  }
}
