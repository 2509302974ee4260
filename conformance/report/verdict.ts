// From the test results of one rule to its verdict, and from all rule verdicts to the run's.
import type { Evidence, OverallVerdict, RuleVerdict } from '../../schemas/generated/conformance-report.ts';
import type { Level } from '../catalog/rules.ts';
import type { Profile } from '../deployment/target.ts';

/** What the reporter saw of one Playwright test of a rule. */
export interface TestOutcome {
  /** Playwright's status: passed, failed, timedOut, skipped, interrupted. */
  status: string;
  warning?: string;
  notEvaluated?: string;
  /** The rule needs a protocol the target does not offer (conformance/run/conformance-rule.ts). */
  notApplicable?: string;
  /** The rule was never started: the target had stopped answering. An ERROR, not a failure. */
  notSent?: string;
  /**
   * What a ConformanceFailure recorded (see conformance/run/conformance-rule.ts): a failure when the test failed,
   * the evidence of the warning when the rule's level let the test pass.
   */
  failure?: { message: string; evidence: Evidence[] };
  /** The first error of a test that failed otherwise: the check could not run. */
  error?: string;
}

export interface RuleVerdictDetail {
  verdict: RuleVerdict;
  message?: string;
  evidence?: Evidence[];
}

export const NOT_RUN_MESSAGE =
  'not evaluated: not run in this selection (--grep, --shard, or an interrupted run).';

/** A level that fails the run under this profile: MUST always, HTTP under strict. */
export function failsRun(level: Level, profile: Profile): boolean {
  return level === 'MUST' || (level === 'HTTP' && profile === 'strict');
}

export function ruleVerdict(outcomes: readonly TestOutcome[]): RuleVerdictDetail {
  if (outcomes.length === 0) return { verdict: 'not-evaluated', message: NOT_RUN_MESSAGE };
  const failed = outcomes.find((outcome) => outcome.failure && outcome.status !== 'passed');
  if (failed?.failure)
    return { verdict: 'fail', message: failed.failure.message, evidence: failed.failure.evidence };
  const errored = outcomes.find((outcome) => outcome.status !== 'passed' && outcome.status !== 'skipped');
  if (errored) return { verdict: 'error', message: errored.error ?? `the check ended ${errored.status}` };
  const notSent = outcomes.find((outcome) => outcome.notSent !== undefined);
  if (notSent) return { verdict: 'error', message: notSent.notSent };
  const warned = outcomes.find((outcome) => outcome.warning !== undefined);
  if (warned) return { verdict: 'warning', message: warned.warning, evidence: warned.failure?.evidence };
  if (outcomes.every((outcome) => outcome.status === 'skipped')) {
    const notApplicable = outcomes.find((outcome) => outcome.notApplicable !== undefined);
    if (notApplicable) return { verdict: 'not-applicable', message: notApplicable.notApplicable };
    return { verdict: 'not-evaluated', message: outcomes[0]?.notEvaluated ?? 'not evaluated: skipped.' };
  }
  return { verdict: 'pass' };
}

/**
 * A rule's verdict as `profile` judges it. A failure of a rule whose level does not fail the run
 * under the profile the test ran under ends as a warning (conformance/run/conformance-rule.ts); judged under
 * a profile where that level does fail the run — a shard run under `default` merged with one run
 * under `strict`, whose profile the merged report takes — it is the failure it was.
 */
export function verdictUnderProfile(
  detail: RuleVerdictDetail,
  level: Level,
  profile: Profile,
): RuleVerdictDetail {
  return detail.verdict === 'warning' && failsRun(level, profile) ? { ...detail, verdict: 'fail' } : detail;
}

/**
 * The run's verdict from its rules' (SETUP ERROR is decided before any rule runs). A rule that
 * could not run, at any level, leaves the verdict at best INCOMPLETE: nothing is known of it.
 */
export function overallVerdict(
  rules: readonly { level: Level; verdict: RuleVerdict }[],
  profile: Profile,
): OverallVerdict {
  const decisive = rules.filter((rule) => failsRun(rule.level, profile));
  if (decisive.some((rule) => rule.verdict === 'fail')) return 'NOT CONFORMANT';
  if (rules.some((rule) => rule.verdict === 'error')) return 'INCOMPLETE';
  if (decisive.some((rule) => rule.verdict === 'not-evaluated')) return 'INCOMPLETE';
  return 'CONFORMANT';
}

/**
 * The run's verdict as every report states it, from its rules; `verify` recomputes it from a
 * report's rules with this same function. A partial run (report/scope.ts: an offered protocol not
 * checked, or fewer rules than the catalog) keeps under the default profile the verdict its rules
 * give, labelled wherever the verdict is shown ("CONFORMANT · HTTP/1.1 only"); under strict it is
 * never CONFORMANT: INCOMPLETE, since nothing is known of what it left out (docs/decisions/0024).
 * A failure found stays NOT CONFORMANT whatever the scope.
 */
export function runVerdict(
  rules: readonly { level: Level; verdict: RuleVerdict }[],
  profile: Profile,
  scope?: { partial: readonly string[] },
): OverallVerdict {
  const verdict = overallVerdict(rules, profile);
  return verdict === 'CONFORMANT' && isHeldBackByScope(profile, scope) ? 'INCOMPLETE' : verdict;
}

/** Whether the run's scope alone keeps it from CONFORMANT: a partial run under strict. */
export function isHeldBackByScope(profile: Profile, scope?: { partial: readonly string[] }): boolean {
  return profile === 'strict' && (scope?.partial.length ?? 0) > 0;
}

/** The exit codes of `npm run conformance` and `npm run merge-reports` (README, --help). */
export const EXIT_CODE = {
  /**
   * CONFORMANT, or INCOMPLETE for lack of inputs, or a partial run under strict, without
   * --fail-on-incomplete.
   */
  ok: 0,
  /** NOT CONFORMANT; or INCOMPLETE (missing inputs, partial under strict) with --fail-on-incomplete. */
  notConformant: 1,
  /** A bad option, environment variable or target file: nothing ran. */
  usage: 2,
  /** SETUP ERROR, a rule that could not run, or a run that broke: nothing certain is known. */
  setup: 3,
} as const;

export function exitCodeFor(
  report: { verdict: OverallVerdict; rules: readonly { verdict: RuleVerdict }[] },
  failOnIncomplete: boolean,
): number {
  if (report.verdict === 'SETUP ERROR') return EXIT_CODE.setup;
  if (report.verdict === 'NOT CONFORMANT') return EXIT_CODE.notConformant;
  if (report.rules.some((rule) => rule.verdict === 'error')) return EXIT_CODE.setup;
  if (report.verdict === 'INCOMPLETE' && failOnIncomplete) return EXIT_CODE.notConformant;
  return EXIT_CODE.ok;
}

export const EXIT_CODE_HELP = `Exit codes:
  0  CONFORMANT; or INCOMPLETE only because inputs are missing, or because under strict the run
     was partial (an offered protocol or some rules left out) — 1 with --fail-on-incomplete
  1  NOT CONFORMANT (a MUST rule failed, or under strict an HTTP rule); or INCOMPLETE for
     missing inputs or a partial strict run, with --fail-on-incomplete
  2  a bad option, environment variable or target file: nothing ran
  3  SETUP ERROR (the preflight could not reach the target: see the stage and fix it names), a
     rule that could not run (no answer from the target), or a run that broke`;
