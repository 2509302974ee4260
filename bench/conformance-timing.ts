// The time of a full conformance run against the embedded reference server: `npm run conformance`
// (tsx conformance/run/run.ts, without npm itself), whose workers start the server in-process on
// free ports, runs every rule and writes its reports into a temporary directory (so
// that a user's reports/ is left alone). Each run must end with VERDICT: CONFORMANT, or it is
// reported as failed. Also `playwright test` with the suite's config against the same with one
// empty spec (bench/floor.config.ts): what the rules add to Playwright's own floor. Bounded: a
// fixed number of runs, each killed after RUN_TIMEOUT_MS.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const PLAYWRIGHT = join(ROOT, 'node_modules', '.bin', 'playwright');
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

export interface ConformanceRow {
  /** `default`, or the Playwright option given (`--workers=1`). */
  variant: string;
  workers: number;
  runs: ConformanceRun[];
}

/** The suite and its floor, run alternately (bench/conformance-section.ts renders them). */
export interface FloorPair {
  suite: ConformanceRun[];
  floor: ConformanceRun[];
}

/** One run of the suite with the extra Playwright options `playwrightArgs` (e.g. `--workers=1`). */
export function timeConformanceRun(playwrightArgs: readonly string[]): Promise<ConformanceRun> {
  return timeRun(
    (reports) => [TSX, join(ROOT, 'conformance', 'run.ts'), '--reports', reports, ...playwrightArgs],
    {},
    (run) => conformantFailure(run),
  );
}

/** Which of a pair is timed: the whole suite, or its floor (bench/floor.config.ts). */
export type PairMember = 'suite' | 'floor';

/**
 * `playwright test` itself (no runner around it) with the suite's config, or with the floor's:
 * the same config with one empty spec. The floor run counts if its one test passed.
 */
export function timePlaywrightRun(member: PairMember): Promise<ConformanceRun> {
  const config =
    member === 'suite' ? join(ROOT, 'playwright.config.ts') : join(ROOT, 'bench', 'floor.config.ts');
  return timeRun(
    () => [PLAYWRIGHT, 'test', '--config', config],
    {},
    member === 'suite' ? conformantFailure : floorFailure,
  );
}

interface Finished {
  code: number | null;
  output: string;
  /** Playwright's JSON report of the run, if it wrote one. */
  json: string;
}

/**
 * Wall and CPU time of `npm run conformance` against the embedded server: with Playwright's
 * default number of workers, and with the other of one or two workers (on two cores the default
 * is already one).
 */
export async function measureConformance(
  runsEach: number,
  progress: (text: string) => void,
): Promise<ConformanceRow[]> {
  const workers = defaultWorkers();
  const variants: { name: string; workers: number; args: string[] }[] = [
    { name: 'default', workers, args: [] },
    ...[1, 2]
      .filter((count) => count !== workers)
      .map((count) => ({ name: `--workers=${count}`, workers: count, args: [`--workers=${count}`] })),
  ];
  const rows: ConformanceRow[] = [];
  for (const variant of variants) {
    const runs = [];
    for (let run = 0; run < runsEach; run += 1) runs.push(await timeConformanceRun(variant.args));
    rows.push({ variant: variant.name, workers: variant.workers, runs });
    progress(`  ${variant.name}: done`);
  }
  return rows;
}

/** The suite and its floor (one empty spec, same config), alternating which goes first. */
export async function measureFloor(runsEach: number): Promise<FloorPair> {
  const pair: FloorPair = { suite: [], floor: [] };
  for (let run = 0; run < runsEach; run += 1) {
    const order: PairMember[] = run % 2 === 0 ? ['suite', 'floor'] : ['floor', 'suite'];
    for (const member of order) pair[member].push(await timePlaywrightRun(member));
  }
  return pair;
}

function conformantFailure({ code, output }: Finished): string | undefined {
  if (!output.includes(VERDICT)) return `no "${VERDICT}" line (exit code ${String(code)})`;
  return code !== 0 ? `exit code ${String(code)}` : undefined;
}

function floorFailure({ json }: Finished): string | undefined {
  const stats = (JSON.parse(json || '{}') as { stats?: { expected?: number; unexpected?: number } }).stats;
  // The set-up project's test and one empty test per rule project.
  return (stats?.expected ?? 0) >= 2 && stats?.unexpected === 0
    ? undefined
    : 'its set-up or its empty tests did not pass';
}

async function timeRun(
  commandFor: (reports: string) => string[],
  env: NodeJS.ProcessEnv,
  failureOf: (finished: Finished) => string | undefined,
): Promise<ConformanceRun> {
  const reports = mkdtempSync(join(tmpdir(), 'bench-conformance-'));
  const cpuFile = join(reports, 'cpu-time.txt');
  const jsonFile = join(reports, 'playwright.json');
  const command = commandFor(reports);
  const withTime = existsSync(GNU_TIME);
  const [file, ...args] = withTime ? [GNU_TIME, '-f', '%U %S', '-o', cpuFile, ...command] : command;
  try {
    const started = performance.now();
    const { code, output, timedOut } = await run(file ?? TSX, args, {
      ...env,
      CONFORMANCE_REPORT_DIR: reports,
      PLAYWRIGHT_JSON_OUTPUT_NAME: jsonFile,
    });
    const wallMs = performance.now() - started;
    const json = existsSync(jsonFile) ? readFileSync(jsonFile, 'utf8') : '';
    return {
      wallMs,
      cpuMs: withTime ? cpuMillis(cpuFile) : undefined,
      load: loadavg()[0] ?? 0,
      failure: timedOut ? `no verdict within ${RUN_TIMEOUT_MS / 1000} s` : failureOf({ code, output, json }),
    };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

function run(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
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
