// Which test results give a rule its outcome. A team's config holds projects of its own beside the
// kit's, and any test can carry the annotations of a rule (`rule: TENANT-…`): only a test of the
// kit's own rule projects, from the kit's own spec files, is a rule's. And a result the evidence
// does not show is not a result: a rule that passed without one exchange of its own in the record
// (the HAR) is an ERROR — but for the rules whose verdict reads a TLS handshake, not an answer.
import { realpathSync } from 'node:fs';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { codeFile } from '../../kit/package-root.ts';
import { RULE_DECLARATIONS } from '../catalog/rules.ts';
import type { TestOutcome } from '../report/verdict.ts';
import { ANNOTATION } from './annotations.ts';
import { ruleIdOf } from './reporter-results.ts';

/** Where every rule's test is declared (registerRules): the location Playwright gives each. */
const KIT_RULE_FILE = realPath(codeFile('conformance/run/conformance-rule'));

/** The rules whose verdict reads the TLS handshake: their evidence is no exchange. */
const HANDSHAKE_RULES: ReadonlySet<string> = new Set(
  RULE_DECLARATIONS.filter((rule) => rule.reads === 'tls').map((rule) => rule.id),
);

/**
 * The rule `test` stands for: only a test of one of `ruleProjects` (the kit's rule projects by
 * name), declared by the kit's own registerRules. In a merge, whose blobs keep no project's options, no rule
 * project is known (`ruleProjects` empty): every test annotated as a rule counts, and its
 * exchanges judge it (`shownByExchanges`).
 */
export function kitRuleIdOf(test: TestCase, ruleProjects: ReadonlySet<string>): string | undefined {
  const id = ruleIdOf(test);
  if (id === undefined || ruleProjects.size === 0) return id;
  const project = test.parent.project()?.name;
  if (project === undefined || !ruleProjects.has(project)) return undefined;
  return realPath(test.location.file) === KIT_RULE_FILE ? id : undefined;
}

/** `outcome`, or an ERROR when it is a pass that no exchange of the rule's own shows. */
export function shownByExchanges(ruleId: string, outcome: TestOutcome, result: TestResult): TestOutcome {
  if (outcome.status !== 'passed' || HANDSHAKE_RULES.has(ruleId)) return outcome;
  if (outcome.notEvaluated !== undefined || outcome.notApplicable !== undefined) return outcome;
  const sent = result.attachments.some(
    (attachment) => attachment.name === ANNOTATION.exchanges && attachment.body !== undefined,
  );
  if (sent) return outcome;
  return {
    status: 'failed',
    error: `${ruleId} passed, but no exchange of it is in the evidence: a result the record does not show is not a result (a test that is not the kit's rule, or a check that sent nothing).`,
  };
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
