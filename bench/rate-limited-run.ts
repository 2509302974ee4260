// `npm run bench:rate-limited`: how long a conformance run takes against a deployment behind a
// rate-limiting gateway, and how it behaves there. The independent implementation
// (tests/independent-implementation/) is put behind a front that allows each client 5 requests
// a second with bursts of 10 and answers 429 with `Retry-After: 1` beyond that, before
// authentication; the suite runs against it BENCH_RATE_LIMITED_RUNS times (3 by default), each
// with a fresh front. Writes bench/rate-limited-results.md and prints it: the verdict, the wall
// time, and what the front counted (requests, 429s, 429s after the first, the most requests in
// any one second after the first 429). Every target is 127.0.0.1; every run is bounded in time.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { runSuite, REPO_ROOT } from '../mutation/suite-run.ts';
import { startIndependentServer } from '../tests/independent-implementation/server.ts';
import {
  ACCEPTANCE_LIMIT,
  startRateLimitedFront,
} from '../tests/independent-implementation/rate-limited-front.ts';
import type { FrontCounts } from '../tests/independent-implementation/front-counters.ts';

const RESULTS_FILE = join(import.meta.dirname, 'rate-limited-results.md');
const DEFAULT_RUNS = 3;
const MAX_RUNS = 10;
/** A run at 5 requests a second takes some 15 s; far longer means it is stuck. */
const RUN_TIME_LIMIT_MS = 180_000;

interface Run {
  verdict: string;
  exitCode: number;
  wallMs: number;
  counts: FrontCounts;
}

function runsWanted(): number {
  const text = process.env.BENCH_RATE_LIMITED_RUNS;
  if (text === undefined) return DEFAULT_RUNS;
  const runs = Number(text);
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS)
    throw new Error(
      `BENCH_RATE_LIMITED_RUNS must be a whole number from 1 to ${MAX_RUNS}, not "${text}". Unset it for ${DEFAULT_RUNS} runs.`,
    );
  return runs;
}

async function main(): Promise<void> {
  const wanted = runsWanted();
  const began = Date.now();
  const load = loadavg()[0]?.toFixed(2) ?? '?';
  const server = await startIndependentServer();
  const runs: Run[] = [];
  try {
    for (let index = 0; index < wanted; index++) {
      const front = await startRateLimitedFront(server, ACCEPTANCE_LIMIT);
      try {
        const started = performance.now();
        const run = await runSuite(['--target', front.target.file], front.target.env, RUN_TIME_LIMIT_MS);
        runs.push({
          verdict: run.report?.verdict ?? `no report (exit ${run.exitCode})`,
          exitCode: run.exitCode,
          wallMs: performance.now() - started,
          counts: front.counters.counts(),
        });
      } finally {
        await front.close();
      }
    }
  } finally {
    await server.close();
  }
  const lines = [
    '# A conformance run behind a rate-limiting gateway',
    '',
    `Written by \`npm run bench:rate-limited\` (bench/rate-limited-run.ts) on ${new Date(began).toISOString()}, load average ${load} at the start${commit()}.`,
    '',
    'The independent implementation (tests/independent-implementation/) behind a front that allows each client 5 requests a second with bursts of 10 (a token bucket) and answers 429 `rate_limited` with `Retry-After: 1` beyond that, before authentication. One fresh front per run; `--profile default`. The wall time is of the whole `tenant-auth-conformance run`, Playwright\u2019s start included.',
    '',
    '| run | verdict | exit | wall s | requests | 429s | 429s after the first | most requests in 1 s after the first 429 |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...runs.map(
      (run, index) =>
        `| ${index + 1} | ${run.verdict} | ${run.exitCode} | ${(run.wallMs / 1000).toFixed(1)} | ${run.counts.requests} | ${run.counts.refused} | ${run.counts.refusedAfterFirst} | ${run.counts.maxPerSecondAfterFirst} |`,
    ),
    '',
    'At 5 requests a second after a burst of 10, a run of some 70 requests cannot take less than about 12 s of pacing; the suite\u2019s own start and CPU time come on top.',
    '',
  ];
  const markdown = await format(lines.join('\n'), {
    ...(await resolveConfig(RESULTS_FILE)),
    filepath: RESULTS_FILE,
  });
  writeFileSync(RESULTS_FILE, markdown);
  console.log(markdown);
}

function commit(): string {
  const result = spawnSync('git', ['-C', REPO_ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return result.status === 0 ? ` (commit ${result.stdout.trim()})` : '';
}

main().catch((error: unknown) => {
  console.error(`bench:rate-limited: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
