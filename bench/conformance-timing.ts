// The time of a full conformance run against the embedded reference server: `npm run conformance`
// (tsx conformance/run.ts, without npm itself), which starts the server through Playwright's
// webServer on free ports, runs every rule and writes its reports into a temporary directory (so
// that a user's reports/ is left alone). Each run must end with VERDICT: CONFORMANT, or it is
// reported as failed. Bounded: a fixed number of runs, each killed after RUN_TIMEOUT_MS.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
/** GNU time reports the CPU time of the whole process tree (Playwright's workers, the server). */
const GNU_TIME = '/usr/bin/time';
const RUN_TIMEOUT_MS = 300_000;
const VERDICT = 'VERDICT: CONFORMANT';

/**
 * The workers of a run without --workers: playwright.config.ts leaves the number to Playwright
 * outside CI, whose default is half the logical CPUs (at least one).
 */
export function defaultWorkers(): number {
  return process.env.CI ? 2 : Math.max(1, Math.floor(cpus().length / 2));
}

export interface ConformanceRun {
  wallMs: number;
  /** User + system CPU time of the run and all its processes; undefined without GNU time. */
  cpuMs?: number;
  /** The 1-minute load average when the run ended. */
  load: number;
  /** Why the run does not count (no CONFORMANT verdict, non-zero exit, time-out). */
  failure?: string;
}

/** One run of the suite with the extra Playwright options `playwrightArgs` (e.g. `--workers=1`). */
export async function timeConformanceRun(playwrightArgs: readonly string[]): Promise<ConformanceRun> {
  const reports = mkdtempSync(join(tmpdir(), 'bench-conformance-'));
  const cpuFile = join(reports, 'cpu-time.txt');
  const command = [TSX, join(ROOT, 'conformance', 'run.ts'), '--reports', reports, ...playwrightArgs];
  const withTime = existsSync(GNU_TIME);
  const [file, ...args] = withTime ? [GNU_TIME, '-f', '%U %S', '-o', cpuFile, ...command] : command;
  try {
    const started = performance.now();
    const { code, output, timedOut } = await run(file ?? TSX, args);
    const wallMs = performance.now() - started;
    const failure = timedOut
      ? `no verdict within ${RUN_TIMEOUT_MS / 1000} s`
      : !output.includes(VERDICT)
        ? `no "${VERDICT}" line (exit code ${String(code)})`
        : code !== 0
          ? `exit code ${String(code)}`
          : undefined;
    return {
      wallMs,
      cpuMs: withTime ? cpuMillis(cpuFile) : undefined,
      load: loadavg()[0] ?? 0,
      failure,
    };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

function run(
  file: string,
  args: readonly string[],
): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, RUN_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

function cpuMillis(file: string): number | undefined {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  // GNU time may write a "Command exited with non-zero status" line first: the times are last.
  const [user, system] = (text.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
  return user === undefined || system === undefined || Number.isNaN(user + system)
    ? undefined
    : (user + system) * 1000;
}
