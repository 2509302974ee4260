// Renders the benchmark's measurements as bench/results.md. Only numbers measured in this run
// are written; what was not measured says so.
import { conformanceSection, floorSection } from './conformance-section.ts';
import type { ConformanceRow, FloorPair } from './conformance-timing.ts';
import { load, median, mib, ms, range, whole } from './numbers.ts';
import { HTTP2_KEEP_ALIVE, type HandshakeResult, type LoadResult, type ServerBuild } from './protocol.ts';
import { startupSection, type StartupRow } from './startup-section.ts';

export interface Measured {
  load: LoadResult;
  /** Server CPU time (user + system) per request, in microseconds. */
  cpuMicrosPerRequest: number;
}

export interface KeepAliveRow {
  scenario: string;
  /** Which build of the reference was measured; `bare` is the same runs for both. */
  server: ServerBuild;
  answer: string;
  reference: Measured[];
  bare: Measured[];
  /** The 1-minute load average at the end of the row's runs (as in every row below). */
  load: number;
}

export interface HandshakeRow {
  target: string;
  resumption: boolean;
  result: HandshakeResult;
  load: number;
}

export type ScalingRow =
  | {
      name: string;
      tenants: number;
      keys: number;
      fixturesMs: number;
      serverStartMs: number;
      rssBytes: number;
      heapBytes: number;
      rssAfterBytes: number;
      ok: Measured;
      invalid: Measured;
      handshakes: HandshakeResult;
      load: number;
    }
  | { name: string; tenants: number; keys: number; error: string; load: number };

export interface Results {
  date: string;
  machine: string;
  settings: string;
  loadBefore: string;
  loadAfter: string;
  keepAlive: KeepAliveRow[];
  http2KeepAlive: KeepAliveRow[];
  handshakes: HandshakeRow[];
  scaling: ScalingRow[];
  startup: StartupRow[];
  conformance: ConformanceRow[];
  floor: FloorPair;
  durationSeconds: number;
}

const RATIO_GOAL = 0.9;

export function renderResults(results: Results): string {
  return [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run.ts) on ${results.date}, in ${Math.round(results.durationSeconds)} s. ` +
      'See [README.md](README.md) for what is measured, how, and how to read it.',
    '',
    `- Machine: ${results.machine}`,
    `- Load average (1, 5, 15 min) before: ${results.loadBefore}; after: ${results.loadAfter}. ` +
      'Other processes on the machine share its cores: compare numbers of one run, not across runs.',
    `- Settings: ${results.settings}`,
    '',
    ...keepAliveSection(results.keepAlive),
    ...http2KeepAliveSection(results.http2KeepAlive),
    ...handshakeSection(results.handshakes),
    ...scalingSection(results.scaling),
    ...startupSection(results.startup),
    ...conformanceSection(results.conformance),
    ...floorSection(results.floor),
  ].join('\n');
}

export const KEEP_ALIVE_HEADING = '## HTTPS keep-alive: reference server vs bare node:https';

function keepAliveSection(rows: readonly KeepAliveRow[]): string[] {
  return [
    KEEP_ALIVE_HEADING,
    '',
    'Each run: autocannon in its own process, keep-alive connections to 127.0.0.1, the server in another',
    'process. The reference runs compiled (dist/, built from the working tree just before: what the',
    'installed `tenant-auth-conformance serve` runs) and through tsx (what `npm start` runs in a clone).',
    '"bare" is node:https writing the bytes the reference answers the scenario with (status line,',
    'header fields, body; captured from the reference, and checked on bare before the runs) and doing nothing',
    'else. Each round runs the three, a different one first in each round; both rows of a scenario are',
    'compared with the same bare runs. Values are the',
    "mean of the rounds; CPU is the server process's user + system time per request. Ratio req/s =",
    'reference ÷ bare (goal ≥ 0.9) and ratio CPU = bare CPU ÷ reference CPU per request (1 = the reference',
    "costs nothing more than node:https), each the median of the rounds' ratios, with their lowest and",
    "highest: two runs of one round share the machine's conditions, so their ratio is steadier than either.",
    '',
    ...keepAliveTable(rows),
  ];
}

export const HTTP2_HEADING = '## HTTP/2 keep-alive: reference server vs bare node:http2';

/** The HTTP/2 rows; `run` says when they were measured alone (`npm run bench -- --http2-only`). */
export function http2KeepAliveSection(
  rows: readonly KeepAliveRow[],
  run: { date: string; load: number } | undefined = undefined,
): string[] {
  return [
    HTTP2_HEADING,
    '',
    ...(run === undefined
      ? []
      : [
          `Measured alone by \`npm run bench -- --http2-only\` on ${run.date}, load ${load(run.load)} at its start.`,
          '',
        ]),
    `The same scenarios over HTTP/2 (bench/http2-load-process.ts, since autocannon speaks HTTP/1.1 only): ${HTTP2_KEEP_ALIVE.sessions}`,
    `node:http2 client sessions, each with ${HTTP2_KEEP_ALIVE.streamsPerSession} requests in flight, every certificate verified and every`,
    'answer compared with the expected one. The reference runs compiled, its listener as it serves (node:http2 with',
    'HTTP/1.1 allowed). "bare" is node:http2\'s secure server writing the bytes the reference answers the scenario with',
    'over HTTP/2 (header fields and body, through the same `writeHead` and `end`; checked on bare before the runs).',
    'Rounds, means and ratios as above. The load generator shares the machine with the server, and one HTTP/2',
    "request costs a Node client more than one over HTTP/1.1: the CPU column is the server's cost, the req/s column",
    "partly the generator's.",
    '',
    ...keepAliveTable(rows),
  ];
}

function keepAliveTable(rows: readonly KeepAliveRow[]): string[] {
  const lines = [
    '| requests | server | answer | reference req/s | p50 ms | p99 ms | CPU µs/req | bare req/s | p50 ms | p99 ms | CPU µs/req | ratio req/s (range) | ratio CPU (range) | load |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const reference = mean(row.reference);
    const bare = mean(row.bare);
    const rpsRatios = pairedRatios(row.reference, row.bare, (run) => run.load.requestsPerSecond);
    const cpuRatios = pairedRatios(row.reference, row.bare, (run) => 1 / run.cpuMicrosPerRequest);
    const ratio = median(rpsRatios);
    lines.push(
      `| ${row.scenario} | ${row.server} | ${row.answer} | ${whole(reference.rps)} | ${ms(reference.p50)} | ${ms(reference.p99)} | ${whole(reference.cpu)} | ` +
        `${whole(bare.rps)} | ${ms(bare.p50)} | ${ms(bare.p99)} | ${whole(bare.cpu)} | ` +
        `${ratio.toFixed(2)}${ratio < RATIO_GOAL ? ' ⚠' : ''} (${range(rpsRatios)}) | ${median(cpuRatios).toFixed(2)} (${range(cpuRatios)}) | ${load(row.load)} |`,
    );
  }
  // A bare run counts once, though two rows show it.
  const measured = new Set(rows.flatMap((row) => [...row.reference, ...row.bare]));
  lines.push('', ...validity([...measured]), '');
  return lines;
}

function handshakeSection(rows: readonly HandshakeRow[]): string[] {
  return [
    '## New TLS connections per second (no keep-alive)',
    '',
    'Each connection: TLS handshake (certificate verified), one authenticated GET /v1/customers with',
    '`Connection: close`, answer read to the close. With resumption the client offers the session ticket of',
    'its previous connection. The reference runs compiled.',
    '',
    '| server | session resumption | connections/s | resumed | p50 ms | p99 ms | failures | load |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.target} | ${row.resumption ? 'on' : 'off'} | ${whole(row.result.connectionsPerSecond)} | ` +
        `${Math.round(row.result.resumedShare * 100)} % | ${ms(row.result.latencyP50Ms)} | ${ms(row.result.latencyP99Ms)} | ${row.result.failures} | ${load(row.load)} |`,
    ),
    '',
  ];
}

function scalingSection(rows: readonly ScalingRow[]): string[] {
  const lines = [
    '## Scaling with keys and tenants',
    '',
    'The compiled server on generated fixtures (bench/generate-fixtures.ts), every key requested from the middle tenant; "valid" is',
    'an authenticated GET /v1/customers (200), "unknown key" a well-formed key that is not stored (401).',
    "Memory: after start-up and a garbage collection, and after the load. CPU: the server's user + system",
    'time per request, the figure least disturbed by other work on the machine.',
    '',
    '| data set | tenants | keys | fixtures + start ms | RSS MiB | heap MiB | RSS after MiB | valid req/s | p50 ms | p99 ms | CPU µs/req | unknown key req/s | p50 ms | p99 ms | CPU µs/req | new TLS conn/s | load |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    if ('error' in row) {
      lines.push(
        `| ${row.name} | ${row.tenants} | ${row.keys} | **did not start: ${row.error.replace(/\|/g, '\\|')}** ||||||||||||${load(row.load)} |`,
      );
      continue;
    }
    lines.push(
      `| ${row.name} | ${row.tenants} | ${row.keys} | ${whole(row.fixturesMs)} + ${whole(row.serverStartMs)} | ${mib(row.rssBytes)} | ${mib(row.heapBytes)} | ${mib(row.rssAfterBytes)} | ` +
        `${whole(row.ok.load.requestsPerSecond)} | ${ms(row.ok.load.latencyP50Ms)} | ${ms(row.ok.load.latencyP99Ms)} | ${whole(row.ok.cpuMicrosPerRequest)} | ` +
        `${whole(row.invalid.load.requestsPerSecond)} | ${ms(row.invalid.load.latencyP50Ms)} | ${ms(row.invalid.load.latencyP99Ms)} | ${whole(row.invalid.cpuMicrosPerRequest)} | ` +
        `${whole(row.handshakes.connectionsPerSecond)} | ${load(row.load)} |`,
    );
  }
  const measured = rows.flatMap((row) => ('error' in row ? [] : [row.ok, row.invalid]));
  lines.push('', ...validity(measured), '', ...growth(rows), '');
  return lines;
}

/**
 * Whether the cost of a request grows with the data set: each data set's CPU per request and p99
 * against the smallest one's. Loopback latency has a resolution of about half a millisecond and
 * moves with the machine's load, so CPU per request is the figure to judge by.
 */
function growth(rows: readonly ScalingRow[]): string[] {
  const measured = rows.flatMap((row) => ('error' in row ? [] : [row]));
  const [first] = measured;
  if (!first || measured.length < 2) return ['Too few data sets started to compare.'];
  const ratios = measured.slice(1).map((row) => {
    const valid = row.ok.cpuMicrosPerRequest / first.ok.cpuMicrosPerRequest;
    const unknown = row.invalid.cpuMicrosPerRequest / first.invalid.cpuMicrosPerRequest;
    return `${row.name}: ${valid.toFixed(2)} (valid) and ${unknown.toFixed(2)} (unknown key)`;
  });
  const failed = rows.filter((row) => 'error' in row).map((row) => row.name);
  return [
    `CPU per request relative to "${first.name}": ${ratios.join('; ')}.`,
    ...(failed.length > 0 ? [`**Not measured (did not start): ${failed.join(', ')}.**`] : []),
  ];
}

export function validity(measured: readonly Measured[]): string[] {
  const wrong = measured.reduce((sum, entry) => sum + entry.load.wrongAnswers, 0);
  const errors = measured.reduce((sum, entry) => sum + entry.load.errors, 0);
  return wrong === 0 && errors === 0
    ? ['Every answer of these runs had the expected status and body; no connection errors.']
    : [`**Invalid runs: ${wrong} answers with another status or body, ${errors} connection errors.**`];
}

export function mean(runs: readonly Measured[]): { rps: number; p50: number; p99: number; cpu: number } {
  const average = (pick: (entry: Measured) => number): number =>
    runs.reduce((sum, entry) => sum + pick(entry), 0) / Math.max(1, runs.length);
  return {
    rps: average((entry) => entry.load.requestsPerSecond),
    p50: average((entry) => entry.load.latencyP50Ms),
    p99: average((entry) => entry.load.latencyP99Ms),
    cpu: average((entry) => entry.cpuMicrosPerRequest),
  };
}

/** `pick` of each round's run of `of` divided by that of the same round's run of `over`. */
export function pairedRatios(
  of: readonly Measured[],
  over: readonly Measured[],
  pick: (run: Measured) => number,
): number[] {
  return of.flatMap((run, round) => {
    const other = over[round];
    return other ? [pick(run) / pick(other)] : [];
  });
}
