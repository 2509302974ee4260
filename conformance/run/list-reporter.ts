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
    // A rule is checked once per protocol project: it is listed, and counted, once.
    const selected = [...new Set(ids)];
    for (const id of selected) {
      const rule = ruleById(id as RuleId);
      console.log(`  ${rule.level.padEnd(8)} ${rule.id}: ${rule.statement}`);
    }
    const checks = ids.length === selected.length ? '' : ` (${ids.length} checks over the protocols)`;
    console.log(
      `\n${selected.length} of ${RULES.length} rules selected${checks}. Nothing was run; no report was written.`,
    );
  }
}
