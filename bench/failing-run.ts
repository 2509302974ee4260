// `npm run bench:failing-run`: what a NOT CONFORMANT run costs against a CONFORMANT one of a
// deployment of the same shape — the independent implementation (tests/independent-implementation/,
// a Node app reached directly), correct, and with the `html` error bodies defect (every error an
// HTML page: many rules fail). The runs alternate, BENCH_FAILING_RUNS pairs (2 by default), each the
// compiled `tenant-auth-conformance run --target FILE` as a user runs it (Playwright's default
// workers). For each run: wall time, the CPU of every Node process of the run (bench/process-cpu.mjs
// preloaded: the `run` command, Playwright's runner and its workers — a new one after each failed
// test), and the requests the deployment received. Writes bench/failing-run-results.md and prints
// it. Every target is 127.0.0.1.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { runBounded } from '../mutation/suite-run.ts';
import { ensureDistCurrent } from '../scripts/dist-current.ts';
import { KIT_BIN, nodeArguments } from '../tests/support/compiled-kit.ts';
import {
  startIndependentServer,
  type IndependentServer,
} from '../tests/independent-implementation/server.ts';
import { writeIndependentTarget } from '../tests/independent-implementation/independent-target.ts';
import { median, range } from './numbers.ts';
import { runsWanted } from './env-settings.ts';

const RESULTS_FILE = join(import.meta.dirname, 'failing-run-results.md');
const PRELOAD = join(import.meta.dirname, 'process-cpu.mjs');
const RUN_TIME_LIMIT_MS = 600_000;
const MAX_RUNS = 5;
/** The goal: a failing run costs at most this many times a passing one. */
const GOAL = 1.5;

interface Measured {
  verdict: string;
  failed: number;
  wallSeconds: number;
  cpuSeconds: number;
  processes: number;
  requests: number;
}

async function measure(server: IndependentServer): Promise<Measured> {
  const target = await writeIndependentTarget(server);
  const work = mkdtempSync(join(tmpdir(), 'bench-failing-run-'));
  const cpuLog = join(work, 'cpu.log');
  const receivedBefore = server.received.length;
  const started = performance.now();
  try {
    const run = await runBounded(
      process.execPath,
      [...nodeArguments(KIT_BIN), 'run', '--target', target.file],
      {
        ...target.env,
        CONFORMANCE_REPORT_DIR: join(work, 'reports'),
        PROCESS_CPU_LOG: cpuLog,
        NODE_OPTIONS: `--import ${PRELOAD}`,
      },
      RUN_TIME_LIMIT_MS,
    );
    const wallSeconds = (performance.now() - started) / 1000;
    const report = JSON.parse(readFileSync(join(work, 'reports', 'conformance.json'), 'utf8')) as {
      verdict: string;
      rules: { verdict: string }[];
    };
    const lines = readFileSync(cpuLog, 'utf8').trim().split('\n');
    const cpuMs = lines.reduce((sum, line) => sum + Number(line.split('\t')[0] ?? 0), 0);
    if (run.exitCode > 1) throw new Error(`The run ended with ${run.exitCode}:\n${run.stderr}`);
    return {
      verdict: report.verdict,
      failed: report.rules.filter((rule) => rule.verdict === 'fail').length,
      wallSeconds,
      cpuSeconds: cpuMs / 1000,
      processes: lines.length,
      requests: server.received.length - receivedBefore,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function row(kind: string, run: Measured): string {
  return `| ${kind} | ${run.verdict} | ${run.failed} | ${run.wallSeconds.toFixed(1)} | ${run.cpuSeconds.toFixed(1)} | ${run.processes} | ${run.requests} |`;
}

function ratioLine(what: string, failing: number[], passing: number[]): string {
  const ratios = failing.map((value, index) => value / (passing[index] ?? value));
  const value = median(ratios);
  return `| ${what} | ${value.toFixed(2)}× | ${range(ratios)} | ${value <= GOAL ? 'met' : 'not met'} |`;
}

async function main(): Promise<void> {
  ensureDistCurrent();
  const loadBefore = loadavg()[0]?.toFixed(2) ?? '?';
  const correct = await startIndependentServer();
  const faulty = await startIndependentServer({ errorBodies: 'html' });
  const passing: Measured[] = [];
  const failing: Measured[] = [];
  try {
    for (let index = 0; index < runsWanted('BENCH_FAILING_RUNS', 2, MAX_RUNS); index++) {
      passing.push(await measure(correct));
      failing.push(await measure(faulty));
    }
  } finally {
    await correct.close();
    await faulty.close();
  }
  const text = [
    '# A failing run against a passing one',
    '',
    `Written by \`npm run bench:failing-run\` on ${new Date().toISOString()}, ${cpus().length} cores, load average ${loadBefore} at the start.`,
    '',
    'The independent implementation reached directly, correct (CONFORMANT) and with every error body an HTML page (NOT CONFORMANT), alternately; each the compiled `tenant-auth-conformance run --target FILE` with Playwright’s default number of workers. CPU is of every Node process of the run (the `run` command, Playwright’s runner and workers); requests are those the deployment received.',
    '',
    '| run | verdict | rules failed | wall s | CPU s | processes | requests |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...passing.flatMap((run, index) => {
      const other = failing[index];
      return [row('correct', run), ...(other ? [row('HTML error bodies', other)] : [])];
    }),
    '',
    `NOT CONFORMANT ÷ CONFORMANT, median of the pairs (goal ≤ ${GOAL}×):`,
    '',
    '| measure | ratio | range | goal |',
    '| --- | --- | --- | --- |',
    ratioLine(
      'wall',
      failing.map((run) => run.wallSeconds),
      passing.map((run) => run.wallSeconds),
    ),
    ratioLine(
      'CPU',
      failing.map((run) => run.cpuSeconds),
      passing.map((run) => run.cpuSeconds),
    ),
    ratioLine(
      'requests received',
      failing.map((run) => run.requests),
      passing.map((run) => run.requests),
    ),
    '',
    'Before the tenants were learned once per run and a failed rule kept its worker (same bench, same machine, 2026-11-28, load average about 20): correct 44.0 and 39.5 s wall, 9.7 and 7.4 s CPU, 4 processes, 88 requests; HTML error bodies 156.0 and 195.5 s wall, 32.2 and 33.0 s CPU, 16 processes (a new worker after each of the 12 failed rules), 148 requests (the tenants’ lists walked again by each new worker) — 4.25× the wall, 3.90× the CPU and 1.68× the requests.',
    '',
  ].join('\n');
  const formatted = await format(text, { ...(await resolveConfig(RESULTS_FILE)), filepath: RESULTS_FILE });
  writeFileSync(RESULTS_FILE, formatted);
  console.log(formatted);
}

await main();
