// The conformance reporter: a line per rule while the run goes, then the verdict table; writes
// conformance.json (schemas/conformance-report.schema.json) and conformance.md; and decides the
// exit code from the verdict.
//
// It is listed first among the reporters because it also redacts in place: Playwright records
// request headers — keys included — in the call log of a failed API call, attaches that log to
// the step, and offers no redaction. Reporters share the result objects and are called in order,
// so masking them here, before the HTML, JUnit and blob reporters see them, keeps every artifact
// free of keys. tests/reports/secrets.test.ts proves it by searching every file a run writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
  TestStep,
} from '@playwright/test/reporter';
import type { ConformanceReport } from '../schemas/generated/conformance-report.ts';
import { buildReport } from './report/build-report.ts';
import { renderMarkdown, VERDICT_LABEL } from './report/markdown.ts';
import { EXIT_CODE, exitCodeFor, ruleVerdict, type TestOutcome } from './report/verdict.ts';
import { ruleById, type RuleId } from './rules.ts';
import { Redactor } from './secrets.ts';
import { ENV, targetFromEnvironment, type Profile } from './target.ts';
import { preflightFromEnvironment } from './global-setup.ts';
import { describeProblem } from './preflight.ts';
import { ANNOTATION } from './annotations.ts';
import { REPORT_ENV, reportDirectory, type RunMetadata } from './report/settings.ts';

export default class ConformanceReporter implements Reporter {
  #redactorOfRun: Redactor | undefined;
  #metadata: RunMetadata | undefined;
  #shard: string | undefined;
  #startedAt = new Date();
  readonly #outcomes = new Map<string, TestOutcome[]>();
  readonly #runErrors: string[] = [];
  readonly #outputDir: string;

  constructor(options: { outputDir?: string } = {}) {
    this.#outputDir = resolve(options.outputDir ?? reportDirectory());
  }

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.#metadata = (config.metadata as { conformance?: RunMetadata }).conformance;
    this.#shard = config.shard ? `${config.shard.current}/${config.shard.total}` : undefined;
    const profile = this.#metadata?.profile ?? 'default';
    if (this.#preflightStopped()) return;
    console.log(
      `Conformance run: ${suite.allTests().length} checks of ${this.#metadata?.target.name ?? 'the target'}, profile ${profile}\n`,
    );
  }

  /** An error outside any test (global setup, a broken config): the run cannot be trusted. */
  onError(error: TestError): void {
    // The preflight stopped the run on purpose, and has printed why.
    if (this.#preflightStopped()) return;
    this.#redactError(error);
    this.#runErrors.push(error.message ?? String(error.value ?? 'unknown error'));
    console.error(`Run error: ${error.message ?? ''}`);
  }

  onStepEnd(_test: TestCase, _result: TestResult, step: TestStep): void {
    if (step.error) this.#redactError(step.error);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    result.errors.forEach((error) => this.#redactError(error));
    if (result.error) this.#redactError(result.error);
    for (const output of [result.stdout, result.stderr]) {
      output.forEach((chunk, index) => (output[index] = this.#redactor().redact(chunk.toString())));
    }
    const ruleId = test.annotations.find((annotation) => annotation.type === ANNOTATION.rule)?.description;
    if (!ruleId) return;
    const outcome = this.#outcomeOf(test, result);
    const outcomes = this.#outcomes.get(ruleId) ?? [];
    // A retried test counts once: its last result.
    if (result.retry > 0) outcomes.pop();
    outcomes.push(outcome);
    this.#outcomes.set(ruleId, outcomes);
    const rule = ruleById(ruleId as RuleId);
    const verdict = ruleVerdict([outcome]).verdict;
    console.log(`  ${VERDICT_LABEL[verdict].padEnd(13)} ${rule.level.padEnd(8)} ${rule.id}`);
  }

  onEnd(result: FullResult): Promise<{ status: FullResult['status'] }> {
    const metadata = this.#metadata ?? {
      target: { name: 'unknown', mode: 'file', baseUrl: '' },
      profile: 'default' as Profile,
      failOnIncomplete: false,
    };
    const preflight = preflightFromEnvironment();
    if (preflight?.ok && process.env[ENV.preflightOnly] === '1') {
      // Only the preflight ran: the reports of an earlier run stay as they are.
      console.log('Preflight passed: the target can be reached. No rule was run (--preflight-only).');
      this.#writeOutcome('PREFLIGHT PASSED', EXIT_CODE.ok);
      return Promise.resolve({ status: 'passed' });
    }
    const report = buildReport(this.#outcomes, {
      target: metadata.target,
      profile: metadata.profile,
      startedAt: result.startTime ?? this.#startedAt,
      durationMs: result.duration,
      ...(this.#shard ? { shard: this.#shard } : {}),
      setupProblems: preflight ? [...preflight.blocking, ...preflight.unavailable] : [],
      setupError: preflight !== undefined && !preflight.ok,
    });
    mkdirSync(this.#outputDir, { recursive: true });
    writeFileSync(join(this.#outputDir, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(this.#outputDir, 'conformance.md'), renderMarkdown(report));
    console.log(summary(report, this.#outputDir));
    if (this.#runErrors.length > 0) console.error(`The run did not complete: ${this.#runErrors.join('; ')}`);
    // Set for the run, or for the merge of its shards.
    const failOnIncomplete = metadata.failOnIncomplete || process.env[REPORT_ENV.failOnIncomplete] === '1';
    // The verdict, not Playwright's count of failed tests, decides the exit code; a run that broke
    // outside the tests, or was interrupted, cannot be trusted.
    const broken =
      this.#runErrors.length > 0 || result.status === 'interrupted' || result.status === 'timedout';
    const exitCode = broken ? EXIT_CODE.setupOrError : exitCodeFor(report, failOnIncomplete);
    this.#writeOutcome(report.verdict, exitCode);
    const status =
      result.status === 'interrupted' || result.status === 'timedout'
        ? result.status
        : exitCode === EXIT_CODE.ok
          ? 'passed'
          : 'failed';
    return Promise.resolve({ status });
  }

  #preflightStopped(): boolean {
    const preflight = preflightFromEnvironment();
    return preflight !== undefined && (!preflight.ok || process.env[ENV.preflightOnly] === '1');
  }

  /** For the runner (conformance/run.ts), which exits with the code: Playwright has only 0 and 1. */
  #writeOutcome(verdict: string, exitCode: number): void {
    const file = process.env[ENV.outcomeFile];
    if (file) writeFileSync(file, JSON.stringify({ verdict, exitCode }));
  }

  #outcomeOf(test: TestCase, result: TestResult): TestOutcome {
    const annotation = (type: string): string | undefined =>
      [...test.annotations, ...result.annotations].find((candidate) => candidate.type === type)?.description;
    const evidence = result.attachments.find((attachment) => attachment.name === ANNOTATION.evidence)?.body;
    const failure = evidence ? (JSON.parse(evidence.toString('utf8')) as TestOutcome['failure']) : undefined;
    const warning = annotation(ANNOTATION.warning);
    const notEvaluated = annotation(ANNOTATION.notEvaluated);
    const firstError = result.errors[0]?.message;
    return {
      status: result.status,
      ...(warning !== undefined ? { warning } : {}),
      ...(notEvaluated !== undefined ? { notEvaluated } : {}),
      ...(failure ? { failure } : {}),
      ...(firstError !== undefined
        ? { error: this.#redactor().redact(firstError.split('\n')[0] ?? '') }
        : {}),
    };
  }

  /**
   * Made on first use, when the first result arrives: by then global setup has minted the keys a
   * target may ask for, and they are in the environment like every other key.
   */
  #redactor(): Redactor {
    if (!this.#redactorOfRun) {
      try {
        this.#redactorOfRun = new Redactor(Object.values(targetFromEnvironment().credentials));
      } catch {
        // merge-reports on a machine without the target's variables: the evidence was redacted
        // when it was recorded, and nothing new is sent.
        this.#redactorOfRun = new Redactor([]);
      }
    }
    return this.#redactorOfRun;
  }

  #redactError(error: TestError): void {
    for (const field of ['message', 'stack', 'value', 'snippet'] as const) {
      const text = error[field];
      if (typeof text === 'string') error[field] = this.#redactor().redact(text);
    }
    if (error.cause) this.#redactError(error.cause);
  }
}

function summary(report: ConformanceReport, outputDir: string): string {
  const footer = [
    `VERDICT: ${report.verdict} (${report.target.name}, profile ${report.profile})`,
    `Reports: ${join(outputDir, 'conformance.md')}, conformance.json, junit.xml, html/`,
    '',
  ];
  if (report.verdict === 'SETUP ERROR') {
    const problems = (report.setupProblems ?? []).map((problem) => `  ${describeProblem(problem)}`);
    return [
      '',
      'No rule was run: the preflight could not reach the target.',
      ...problems,
      '',
      ...footer,
    ].join('\n');
  }
  const levels = ['MUST', 'HTTP', 'ADVISORY'] as const;
  const verdicts = ['pass', 'fail', 'warning', 'not-evaluated', 'error'] as const;
  const header = `  ${'level'.padEnd(10)}${verdicts.map((verdict) => VERDICT_LABEL[verdict].padStart(15)).join('')}`;
  const rows = levels.map(
    (level) =>
      `  ${level.padEnd(10)}${verdicts
        .map((verdict) =>
          String(
            report.rules.filter((rule) => rule.level === level && rule.verdict === verdict).length,
          ).padStart(15),
        )
        .join('')}`,
  );
  const attention = report.rules
    .filter((rule) => rule.verdict !== 'pass')
    .map(
      (rule) =>
        `  ${VERDICT_LABEL[rule.verdict].padEnd(13)} ${rule.level.padEnd(8)} ${rule.id}: ${rule.message ?? ''}`,
    );
  return ['', header, ...rows, ...(attention.length > 0 ? ['', ...attention] : []), '', ...footer].join('\n');
}
