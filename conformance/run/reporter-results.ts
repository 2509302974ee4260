// What the conformance reporter reads off Playwright's results, as pure functions: a test's rule,
// its annotations, its outcome, the run's selection and the shards' records a merge hands it.
// Kept apart from the reporter (reporter.ts), which keeps the order of a run's events.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { FullConfig, FullProject, FullResult, TestCase, TestResult } from '@playwright/test/reporter';
import { EXIT_CODE, type TestOutcome } from '../report/verdict.ts';
import type { KeyNamer } from '../redaction/shown-keys.ts';
import { shardRecordFile, type ShardRecord } from '../report/shard-records.ts';
import { ENV } from '../env.ts';
import { ANNOTATION } from './annotations.ts';
import { declaredTargetOf } from './run-target.ts';
import { PROTOCOL_NAME } from '../requests/protocols.ts';

/** A result's annotation of `type` (set while the test ran), if any. */
export function annotationOf(result: TestResult, type: string): string | undefined {
  return result.annotations.find((annotation) => annotation.type === type)?.description;
}

export function ruleIdOf(test: TestCase): string | undefined {
  return test.annotations.find((annotation) => annotation.type === ANNOTATION.rule)?.description;
}

/** `https://host:port` of a recorded URL (keys in it are shown as variables, never in the origin). */
export function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'not a URL';
  }
}

/** `value` with every string in it shown by `namer` (keys as their variables' names). */
export function showEveryString(value: unknown, namer: KeyNamer): unknown {
  if (typeof value === 'string') return namer.show(value);
  if (Array.isArray(value)) return value.map((item) => showEveryString(item, namer));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, showEveryString(item, namer)]),
    );
  return value;
}

/** A rule test's outcome, as its annotations, its evidence and its first error say. */
export function outcomeOf(test: TestCase, result: TestResult, namer: KeyNamer): TestOutcome {
  const annotation = (type: string): string | undefined =>
    [...test.annotations, ...result.annotations].find((candidate) => candidate.type === type)?.description;
  const evidence = result.attachments.find((attachment) => attachment.name === ANNOTATION.evidence)?.body;
  const failure = evidence ? (JSON.parse(evidence.toString('utf8')) as TestOutcome['failure']) : undefined;
  const warning = annotation(ANNOTATION.warning);
  const notEvaluated = annotation(ANNOTATION.notEvaluated);
  const notApplicable = annotation(ANNOTATION.notApplicable);
  const notSent = annotation(ANNOTATION.notSent);
  const firstError =
    result.errors[0]?.message === undefined ? undefined : stripVTControlCharacters(result.errors[0].message);
  return {
    status: result.status,
    ...(warning !== undefined ? { warning } : {}),
    ...(notEvaluated !== undefined ? { notEvaluated } : {}),
    ...(notApplicable !== undefined ? { notApplicable } : {}),
    ...(notSent !== undefined ? { notSent } : {}),
    ...(failure ? { failure } : {}),
    ...(firstError !== undefined ? { error: namer.show(firstError.split('\n')[0] ?? '') } : {}),
  };
}

/** --grep and --grep-invert as given, when they select (Playwright's default matches every test). */
export function selectionOf(config: FullConfig): { grep?: string; grepInvert?: string } {
  const text = (patterns: RegExp | RegExp[] | null): string | undefined => {
    const list = (Array.isArray(patterns) ? patterns : patterns ? [patterns] : []).filter(
      (pattern) => pattern.source !== '.*',
    );
    return list.length > 0 ? list.map((pattern) => pattern.source).join(' | ') : undefined;
  };
  const grep = text(config.grep);
  const grepInvert = text(config.grepInvert);
  return { ...(grep !== undefined ? { grep } : {}), ...(grepInvert !== undefined ? { grepInvert } : {}) };
}

/**
 * In `merge`: the shards' records it read (ENV.shardRecords, a JSON array); none in a run. A
 * hand-over of the merge command, not a setting: the file it wrote for this process.
 */
export function shardRecordsOfMerge(env: NodeJS.ProcessEnv): ShardRecord[] {
  const file = env[ENV.shardRecords];
  return file ? (JSON.parse(readFileSync(file, 'utf8')) as ShardRecord[]) : [];
}

/**
 * For the runner (conformance/run/run.ts), which exits with the code: Playwright has only 0 and 1.
 * The outcome file is a hand-over of the runner, not a setting.
 */
export function writeOutcome(verdict: string, exitCode: number, env: NodeJS.ProcessEnv): void {
  const file = env[ENV.outcomeFile];
  if (file) writeFileSync(file, JSON.stringify({ verdict, exitCode }));
}

/**
 * The protocols every selected rule was checked over, and how many rules a protocol checked for
 * some but not all were. Counted from what each test said it ran over (`ranOver`); only a run
 * whose tests say nothing (blobs of an earlier kit) falls back to its projects (`selectedOver`).
 */
export function protocolsCovered(
  ranOver: ReadonlyMap<string, ReadonlySet<string>>,
  selectedOver: ReadonlyMap<string, ReadonlySet<string>>,
  selectedRules: ReadonlySet<string>,
  runProtocols: readonly string[],
): { protocolsChecked: string[]; rulesChecked?: Record<string, number> } {
  if (ranOver.size === 0)
    return {
      protocolsChecked: runProtocols.filter(
        (protocol) => selectedOver.get(protocol)?.size === selectedRules.size,
      ),
    };
  const selected = (rules: ReadonlySet<string>): number =>
    [...rules].filter((rule) => selectedRules.has(rule)).length;
  const counts = [...ranOver].map(([protocol, rules]) => [protocol, selected(rules)] as const);
  const protocolsChecked = [PROTOCOL_NAME.h1, PROTOCOL_NAME.h2].filter((protocol) =>
    counts.some(([name, count]) => name === protocol && count === selectedRules.size),
  );
  const some = counts.filter(([, count]) => count > 0 && count < selectedRules.size);
  return { protocolsChecked, ...(some.length > 0 ? { rulesChecked: Object.fromEntries(some) } : {}) };
}

/**
 * How many different targets (or settings) `ruleProjects` check: a report is one target's under
 * one set of settings, so more than one is not one run.
 */
export function targetsChecked(ruleProjects: readonly FullProject[]): number {
  const runSettingsOf = (project: FullProject): unknown =>
    (project.use as { runSettings?: unknown } | undefined)?.runSettings ?? {};
  return new Set(
    ruleProjects.map((project) => JSON.stringify([declaredTargetOf(project), runSettingsOf(project)])),
  ).size;
}

/**
 * The end of a run with --preflight-only: the preflight has printed what it found, and the reports
 * of an earlier run stay as they are.
 */
export function preflightOnlyEnded(
  reached: boolean,
  env: NodeJS.ProcessEnv,
): { status: FullResult['status'] } {
  console.log(
    reached
      ? 'Preflight passed: the target can be reached. No rule was run (--preflight-only).'
      : 'Preflight failed (see above): fix the set-up, then run again. No rule was run (--preflight-only).',
  );
  writeOutcome(reached ? 'PREFLIGHT PASSED' : 'SETUP ERROR', reached ? EXIT_CODE.ok : EXIT_CODE.setup, env);
  return { status: reached ? 'passed' : 'failed' };
}

/** A shard's record, beside its blob (after the blob reporter has emptied the folder and written it). */
export function writeShardRecord(outputDir: string, record: ShardRecord): void {
  const blob = join(outputDir, 'blob');
  mkdirSync(blob, { recursive: true });
  writeFileSync(join(blob, shardRecordFile(record.shard)), `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * The run's exit code and Playwright status. The verdict, not Playwright's count of failed tests,
 * decides the exit code; a run that broke outside the tests, or was interrupted, cannot be trusted
 * — but a failure seen is the exit code of NOT CONFORMANT whatever else broke: the code is the
 * printed verdict's.
 */
export function runEnd(
  result: FullResult,
  verdict: string,
  runErrors: boolean,
  verdictExitCode: number,
): { exitCode: number; status: FullResult['status'] } {
  const stopped = result.status === 'interrupted' || result.status === 'timedout';
  const exitCode = (runErrors || stopped) && verdict !== 'NOT CONFORMANT' ? EXIT_CODE.setup : verdictExitCode;
  return { exitCode, status: stopped ? result.status : exitCode === EXIT_CODE.ok ? 'passed' : 'failed' };
}
