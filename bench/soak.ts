// `npm run soak`: the fuzz model of tests/hostile driven for a million requests over HTTP/1.1 and
// HTTP/2 against one reference server (tests/hostile/soak.ts), every answer checked against the
// model. The server runs in a process of its own, so that its resident memory is its own: read
// after the warm-up and at the end. Writes bench/soak-results.md and prints it: requests per
// protocol, disagreements with the model, answers carrying another tenant's data, 5xx answers, and
// the memory. Bounded by SOAK_REQUESTS (1 000 000) and SOAK_MINUTES (45); every target is
// 127.0.0.1. Exits 1 when a goal is missed.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { startChildServer } from '../tests/hostile/child-server.ts';
import { positiveNumber } from './env-settings.ts';
import { runSoak, type ProtocolTally, type SoakResult } from '../tests/hostile/soak.ts';

const RESULTS_FILE = join(import.meta.dirname, 'soak-results.md');
const REPO_ROOT = join(import.meta.dirname, '..');
/**
 * Requests after which the server is warm and its memory is read: 5 % of the run, but at least
 * 50 000 (the RSS climbs for the first tens of thousands) and at most half of it.
 */
function warmUpRequests(requests: number): number {
  return Math.min(Math.max(Math.round(requests * 0.05), 50_000), Math.round(requests / 2));
}
/** How much the server's resident set may grow from the warm-up to the end. */
const RSS_GROWTH_GOAL = 0.1;
/** At most one progress line, and one reading of the server's memory, this often. */
const PROGRESS_EVERY_MS = 30_000;

interface MemorySample {
  requests: number;
  rss: number;
  heapUsed: number;
}

/** The whole number in environment variable `name`, or `fallback` when it is unset. */
function setting(name: string, fallback: number): number {
  return Math.round(positiveNumber(name) ?? fallback);
}

async function main(): Promise<void> {
  const requests = setting('SOAK_REQUESTS', 1_000_000);
  const minutes = setting('SOAK_MINUTES', 45);
  const seed = setting('SOAK_SEED', randomInt(1, 2 ** 31 - 1));
  const http1Connections = setting('SOAK_HTTP1_CONNECTIONS', 16);
  const http2Streams = setting('SOAK_HTTP2_STREAMS', 64);
  const began = new Date();
  const loadAtStart = loadavg()[0] ?? 0;
  console.log(
    `soak: ${requests} requests or ${minutes} min, seed ${seed}, ${http1Connections} HTTP/1.1 connections, ${http2Streams} HTTP/2 streams at once`,
  );
  const server = await startChildServer();
  let warmedUp: MemorySample | undefined;
  /** Readings after the warm-up, one a progress line. */
  const samples: MemorySample[] = [];
  let lastProgress = Date.now();
  let result: SoakResult;
  let end: { rss: number; heapUsed: number };
  try {
    result = await runSoak({
      port: server.port,
      ca: server.ca,
      knowledge: server.knowledge,
      requests,
      timeLimitMs: minutes * 60_000,
      seed,
      http1Connections,
      http2Streams,
      warmUpRequests: warmUpRequests(requests),
      warmedUp: async (soFar) => {
        const memory = await server.memory();
        warmedUp = { ...memory, requests: sentBy(soFar) };
        console.log(`soak: warm after ${warmedUp.requests} requests, server RSS ${mib(memory.rss)}`);
      },
      progress: async (soFar) => {
        if (Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
        lastProgress = Date.now();
        const memory = await server.memory();
        if (warmedUp) samples.push({ ...memory, requests: sentBy(soFar) });
        console.log(`soak: ${progressLine(soFar)}; server RSS ${mib(memory.rss)}`);
      },
    });
    end = await server.memory();
  } finally {
    await server.stop();
  }
  const markdown = await format(
    report(result, { began, loadAtStart, requests, minutes, warmedUp, samples, end }),
    {
      ...(await resolveConfig(RESULTS_FILE)),
      filepath: RESULTS_FILE,
    },
  );
  writeFileSync(RESULTS_FILE, markdown);
  console.log(markdown);
  if (missedGoals(result, warmedUp, end).length > 0) process.exitCode = 1;
}

function sentBy(result: SoakResult): number {
  return result.http1.requests + result.http2.requests;
}

function progressLine(result: SoakResult): string {
  const seconds = result.elapsedMs / 1000;
  const both = [result.http1, result.http2];
  return (
    `${seconds.toFixed(0)} s: HTTP/1.1 ${result.http1.requests}, HTTP/2 ${result.http2.requests} ` +
    `(${(sentBy(result) / seconds).toFixed(0)}/s); disagreements ${sum(both, 'disagreements')}, ` +
    `wrong tenant's data ${sum(both, 'wrongTenantData')}, 5xx ${sum(both, 'serverErrors')}`
  );
}

function sum(tallies: ProtocolTally[], field: 'disagreements' | 'wrongTenantData' | 'serverErrors'): number {
  return tallies.reduce((total, tally) => total + tally[field], 0);
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function rssChange(warmedUp: { rss: number } | undefined, end: { rss: number }): number | undefined {
  return warmedUp ? (end.rss - warmedUp.rss) / warmedUp.rss : undefined;
}

function percent(change: number): string {
  return `${change > 0 ? '+' : ''}${(change * 100).toFixed(1)} %`;
}

function missedGoals(
  result: SoakResult,
  warmedUp: { rss: number } | undefined,
  end: { rss: number },
): string[] {
  const both = [result.http1, result.http2];
  const change = rssChange(warmedUp, end);
  return [
    ...(sum(both, 'disagreements') > 0 ? ['disagreements with the model'] : []),
    ...(sum(both, 'wrongTenantData') > 0 ? ["answers with another tenant's data"] : []),
    ...(sum(both, 'serverErrors') > 0 ? ['5xx answers'] : []),
    ...(change === undefined || change > RSS_GROWTH_GOAL
      ? [`server RSS at most ${percent(RSS_GROWTH_GOAL)} from the warm-up`]
      : []),
    ...(result.stoppedBy === 'time' ? ['the request count (the time limit came first)'] : []),
  ];
}

function report(
  result: SoakResult,
  run: {
    began: Date;
    loadAtStart: number;
    requests: number;
    minutes: number;
    warmedUp: MemorySample | undefined;
    samples: readonly MemorySample[];
    end: { rss: number; heapUsed: number };
  },
): string {
  const rssReadings = run.samples.map((sample) => sample.rss);
  const seconds = result.elapsedMs / 1000;
  const change = rssChange(run.warmedUp, run.end);
  const row = (name: string, tally: ProtocolTally): string =>
    `| ${name} | ${tally.requests} | ${tally.handWritten} | ${tally.disagreements} | ${tally.wrongTenantData} | ${tally.serverErrors} | ${answers(tally)} |`;
  const missed = missedGoals(result, run.warmedUp, run.end);
  return [
    '# Soak: the fuzz model over HTTP/1.1 and HTTP/2',
    '',
    `Written by \`npm run soak\` (bench/soak.ts) on ${run.began.toISOString()}${commit()}, Node ${process.version}, load average ${run.loadAtStart.toFixed(2)} at the start and ${(loadavg()[0] ?? 0).toFixed(2)} at the end. Seed ${result.seed} (\`SOAK_SEED=${result.seed}\` replays the same cases).`,
    '',
    `Limits: ${run.requests} requests or ${run.minutes} min; stopped by the ${result.stoppedBy === 'count' ? 'request count' : 'time limit'} after ${seconds.toFixed(0)} s (${(sentBy(result) / seconds).toFixed(0)} requests/s, both protocols together). ${result.http1Only} cases had no HTTP/2 form (an HTTP version other than 1.1) and went over HTTP/1.1 alone; the HTTP/2 requests used ${result.http2Sessions} sessions.`,
    '',
    '| protocol | requests | through the frame writer | disagreements with the model | answers with another tenant’s data | 5xx | answers |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    row('HTTP/1.1', result.http1),
    row('HTTP/2', result.http2),
    '',
    '| server (own process) | requests so far | RSS | V8 heap in use |',
    '| --- | --- | --- | --- |',
    run.warmedUp
      ? `| after the warm-up | ${run.warmedUp.requests} | ${mib(run.warmedUp.rss)} | ${mib(run.warmedUp.heapUsed)} |`
      : '| after the warm-up | (not reached) | | |',
    `| at the end | ${sentBy(result)} | ${mib(run.end.rss)} | ${mib(run.end.heapUsed)} |`,
    '',
    `RSS change from the warm-up to the end: ${change === undefined ? 'not measured' : percent(change)} (goal: at most ${percent(RSS_GROWTH_GOAL)}; a fall is no leak). Memory is read after a garbage collection, with nothing in flight.` +
      (rssReadings.length === 0
        ? ''
        : ` In between, read every ${PROGRESS_EVERY_MS / 1000} s (${rssReadings.length} readings), the RSS stayed between ${mib(Math.min(...rssReadings))} and ${mib(Math.max(...rssReadings))}: ${run.samples.map((sample) => `${Math.round(sample.requests / 1000)}k ${(sample.rss / 2 ** 20).toFixed(0)}`).join(', ')} (requests, MiB).`),
    '',
    missed.length === 0 ? 'Every goal met.' : `Goals missed: ${missed.join('; ')}.`,
    '',
    ...(result.examples.length === 0
      ? []
      : ['## First disagreements', '', ...result.examples.map((example) => `\`\`\`\n${example}\n\`\`\`\n`)]),
  ].join('\n');
}

/** Answers by status or reset code, most frequent first. */
function answers(tally: ProtocolTally): string {
  return Object.entries(tally.answers)
    .sort(([, a], [, b]) => b - a)
    .map(([answer, count]) => `${answer}: ${count}`)
    .join(', ');
}

function commit(): string {
  const result = spawnSync('git', ['-C', REPO_ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return result.status === 0 ? ` (commit ${result.stdout.trim()})` : '';
}

main().catch((error: unknown) => {
  console.error(`soak: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
