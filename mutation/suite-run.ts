// Runs the conformance suite in a child process the way a user does (`tenant-auth-conformance
// run`, cli/main.ts), bounded in time, and reads back its report. The campaign checks variants
// this way; the repository's tests run the suite through it too.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeCommand, PACKAGE_ROOT } from '../kit/package-root.ts';
import type { ConformanceReport } from '../schemas/generated/conformance-report.ts';
import { inputEnvironment } from '../conformance/env.ts';

export const REPO_ROOT = PACKAGE_ROOT;

export interface BoundedRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface SuiteRun extends BoundedRun {
  /** Where this run wrote its reports (a fresh temporary directory). */
  reportDir: string;
  /** conformance.json of the run, if it got that far. */
  report: ConformanceReport | undefined;
}

/**
 * Runs `tenant-auth-conformance run` with `args`, its reports in a fresh directory; bounded by
 * `timeoutMs`. `kit` is the command that starts the kit's CLI: by default this code's own
 * (cli/main through tsx's loader in a clone); a test gives the compiled kit, as a user runs it.
 */
export async function runSuite(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  kit: readonly string[] = kitCommand(),
): Promise<SuiteRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'conformance-run-'));
  const [node = process.execPath, ...main] = kit;
  const run = await runBounded(
    node,
    [...main, 'run', ...args],
    { CONFORMANCE_REPORT_DIR: reportDir, ...env },
    timeoutMs,
  );
  return { ...run, reportDir, report: readReport(join(reportDir, 'conformance.json')) };
}

/** The kit's CLI as this code runs it: Node with tsx's loader rather than the tsx command, which starts a second Node process. */
export function kitCommand(): string[] {
  return nodeCommand('cli/main');
}

/** A conformance.json report, or undefined when the run wrote none (it stopped before). */
export function readReport(file: string): ConformanceReport | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport;
  } catch {
    return undefined;
  }
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
    env: { ...inputEnvironment(), ...env },
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
