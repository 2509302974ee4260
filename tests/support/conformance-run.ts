// Runs the conformance suite the way a user does (`npm run conformance -- …`, the CLI's `run`) and reads back
// what happened to each rule from Playwright's JSON report.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { EMBEDDED_TARGET_FILE, readTargetFile } from '../../conformance/target.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

export interface RuleOutcome {
  ruleId: string;
  /** Playwright's final status: passed, failed, skipped, timedOut, interrupted. */
  status: string;
  annotations: { type: string; description?: string }[];
  errors: string[];
}

export interface ConformanceRun {
  exitCode: number;
  /** Where this run wrote its reports (a fresh temporary directory). */
  reportDir: string;
  /** reports/conformance.json of the run, if it got that far. */
  report: ConformanceReport | undefined;
  stdout: string;
  stderr: string;
  outcomes: RuleOutcome[];
}

interface JsonReport {
  suites?: JsonSuite[];
}
interface JsonSuite {
  suites?: JsonSuite[];
  specs?: {
    tags: string[];
    tests: {
      annotations: RuleOutcome['annotations'];
      results: { status: string; errors: { message?: string }[] }[];
    }[];
  }[];
}

/** Runs `tenant-auth-conformance run` (cli/main.ts) with `args`; bounded by `timeoutMs`. */
export async function runConformance(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 180_000,
): Promise<ConformanceRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'conformance-run-'));
  const reportFile = join(reportDir, 'playwright.json');
  const { exitCode, stdout, stderr } = await runBounded(
    join(REPO_ROOT, 'node_modules', '.bin', 'tsx'),
    ['cli/main.ts', 'run', ...args],
    { PLAYWRIGHT_JSON_OUTPUT_NAME: reportFile, CONFORMANCE_REPORT_DIR: reportDir, ...env },
    timeoutMs,
  );
  let outcomes: RuleOutcome[] = [];
  try {
    outcomes = outcomesOf(JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport);
  } catch {
    // No report: the run failed before Playwright started; exitCode and stderr tell why.
  }
  let report: ConformanceReport | undefined;
  try {
    report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as ConformanceReport;
  } catch {
    // Same: no run, no report.
  }
  return { exitCode, reportDir, report, stdout, stderr, outcomes };
}

export interface BoundedRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` in the repository with `env` added to this process's, killed after `timeoutMs`. */
export async function runBounded(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<BoundedRun> {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    // Its own process group, so that a time-out ends Playwright and its workers too, not only tsx.
    detached: true,
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, timeoutMs);
  const exitCode = await new Promise<number>((done) => child.on('close', (code) => done(code ?? -1)));
  clearTimeout(timer);
  return { exitCode, stdout, stderr };
}

function outcomesOf(report: JsonReport): RuleOutcome[] {
  const outcomes: RuleOutcome[] = [];
  const visit = (suite: JsonSuite): void => {
    suite.suites?.forEach(visit);
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests) {
        const last = test.results.at(-1);
        outcomes.push({
          ruleId: (spec.tags[0] ?? '').replace(/^@/, ''),
          status: last?.status ?? 'unknown',
          annotations: test.annotations,
          errors: (last?.errors ?? []).map((error) => error.message ?? ''),
        });
      }
    }
  };
  report.suites?.forEach(visit);
  return outcomes;
}

/**
 * fixtures/reference-target.json for a reference server listening on `ports`: every URL and
 * credential of the embedded target, with `extra` (the CA file, the host map) added by the caller.
 */
export function referenceTargetOn(
  ports: { https: string | number; http: string | number },
  extra: object,
): object {
  // Its schema and CA paths are relative to fixtures/, and the host map is the caller's choice:
  // only its URLs (with these ports) and its credentials are taken.
  const embedded = readTargetFile(EMBEDDED_TARGET_FILE);
  const required = (url: string | undefined): string => url ?? '';
  const on = (url: string, port: string | number): string => {
    const parsed = new URL(url);
    parsed.port = String(port);
    return parsed.toString().replace(/\/$/, '');
  };
  return {
    baseUrl: on(embedded.baseUrl, ports.https),
    otherTenantBaseUrl: on(required(embedded.otherTenantBaseUrl), ports.https),
    sandboxBaseUrl: on(required(embedded.sandboxBaseUrl), ports.https),
    plainHttpBaseUrl: on(required(embedded.plainHttpBaseUrl), ports.http),
    credentials: embedded.credentials,
    ...extra,
  };
}
