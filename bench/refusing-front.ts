// `npx tsx bench/refusing-front.ts`: how long a conformance run takes behind a front that refuses
// everything — 429 with `Retry-After: 120` to every request, with `--retry-budget 5` — against a
// normal run of the same deployment (the independent implementation, tests/independent-implementation/,
// reached directly). The whole run should end within the budget plus about a normal run's time: each
// request gets one try (the wait asked is longer than the budget), and once ten in a row got only
// that, the remaining rules are not sent (conformance/requests/answer-watch.ts). Writes
// bench/refusing-front-results.md and prints it: verdict, exit code, wall time and the requests the
// front counted, for BENCH_REFUSING_RUNS pairs of runs (1 by default). Every target is 127.0.0.1.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { runSuite } from '../mutation/suite-run.ts';
import { startIndependentServer } from '../tests/independent-implementation/server.ts';
import { startGateFront } from '../tests/independent-implementation/gate-front.ts';
import { writeIndependentTarget } from '../tests/independent-implementation/independent-target.ts';

const RESULTS_FILE = join(import.meta.dirname, 'refusing-front-results.md');
const RUN_TIME_LIMIT_MS = 600_000;
const MAX_RUNS = 5;

interface Row {
  kind: string;
  verdict: string;
  exitCode: number;
  wallSeconds: number;
  requests: number | undefined;
}

function runsWanted(): number {
  const text = process.env.BENCH_REFUSING_RUNS;
  if (text === undefined) return 1;
  const runs = Number(text);
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS)
    throw new Error(`BENCH_REFUSING_RUNS must be a whole number from 1 to ${MAX_RUNS}, not "${text}".`);
  return runs;
}

async function timed(args: string[], env: NodeJS.ProcessEnv): Promise<Omit<Row, 'kind' | 'requests'>> {
  const started = performance.now();
  const run = await runSuite(args, env, RUN_TIME_LIMIT_MS);
  return {
    verdict: run.report?.verdict ?? `no report (exit ${run.exitCode})`,
    exitCode: run.exitCode,
    wallSeconds: (performance.now() - started) / 1000,
  };
}

async function main(): Promise<void> {
  const load = loadavg()[0]?.toFixed(2) ?? '?';
  const server = await startIndependentServer();
  const rows: Row[] = [];
  try {
    const direct = await writeIndependentTarget(server);
    for (let index = 0; index < runsWanted(); index++) {
      rows.push({
        kind: 'direct',
        requests: undefined,
        ...(await timed(['--target', direct.file], direct.env)),
      });
      let requests = 0;
      const front = await startGateFront({
        upstreamPort: server.port,
        upstreamCa: server.caPem,
        gate: () => {
          requests += 1;
          return {
            answer: {
              status: 429,
              headers: { 'Content-Type': 'application/json', 'Retry-After': '120' },
              body: '{"error":{"code":"rate_limited","message":"Too many requests."}}',
            },
          };
        },
      });
      try {
        const behind = await writeIndependentTarget({ ...server, port: front.port, caPem: front.caPem });
        const run = await timed(['--target', behind.file, '--retry-budget', '5'], behind.env);
        rows.push({ kind: 'behind the refusing front', requests, ...run });
      } finally {
        await front.close();
      }
    }
  } finally {
    await server.close();
  }
  const text = [
    '# A conformance run behind a front that refuses everything',
    '',
    `Written by \`npx tsx bench/refusing-front.ts\` on ${new Date().toISOString()}, load average ${load} at the start.`,
    '',
    'The independent implementation reached directly, then behind a front that answers every request 429 with `Retry-After: 120`, run with `--retry-budget 5` (`--profile default`, Playwright’s default number of workers). The wall time is of the whole `tenant-auth-conformance run`, Playwright’s start included.',
    '',
    '| run | verdict | exit | wall s | requests the front got |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.kind} | ${row.verdict} | ${row.exitCode} | ${row.wallSeconds.toFixed(1)} | ${row.requests ?? '—'} |`,
    ),
    '',
    'Before the run stopped sending after ten such requests in a row (conformance/requests/answer-watch.ts), the same run behind the front took 124.8 s with one worker on this machine (2026-11-27): each of its 34 rules in ERROR failed its test, and Playwright starts a new worker process after every failed test.',
    '',
  ].join('\n');
  const formatted = await format(text, { ...(await resolveConfig(RESULTS_FILE)), filepath: RESULTS_FILE });
  writeFileSync(RESULTS_FILE, formatted);
  console.log(formatted);
}

await main();
