// `npm run bench:run-requests`: how many requests a full conformance run sends, per protocol, and
// how long it takes at `--max-rps 4` — the numbers the docs quote (docs/production-deployments.md;
// tests/docs/measured-numbers.test.ts holds the docs to this file's). The suite runs against the
// embedded reference (the protocols it offers: HTTP/1.1 and HTTP/2) twice, unpaced and at
// `--max-rps 4`; the requests are counted from each run's exchanges.har, the record of what was
// sent. Writes bench/run-requests-results.md and prints it. Every run is bounded in time.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { format } from 'prettier';
import { runSuite } from '../mutation/suite-run.ts';
import { seconds } from './numbers.ts';

export const RESULTS_FILE = join(import.meta.dirname, 'run-requests-results.md');
/** A paced run of some 200 requests at 4 a second takes about a minute; far longer is stuck. */
const RUN_TIME_LIMIT_MS = 600_000;

interface Measured {
  verdict: string;
  wallMs: number;
  /** Requests of the HAR by the protocol they went over, as the HAR names it. */
  byProtocol: Record<string, number>;
  total: number;
}

/** The HAR's entries counted by request httpVersion. */
export function requestsByProtocol(har: string): Record<string, number> {
  const entries = (JSON.parse(har) as { log: { entries: { request: { httpVersion: string } }[] } }).log
    .entries;
  const counts: Record<string, number> = {};
  for (const entry of entries)
    counts[entry.request.httpVersion] = (counts[entry.request.httpVersion] ?? 0) + 1;
  return counts;
}

async function measure(args: string[]): Promise<Measured> {
  const started = performance.now();
  const run = await runSuite(args, {}, RUN_TIME_LIMIT_MS);
  const wallMs = performance.now() - started;
  try {
    const byProtocol = requestsByProtocol(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8'));
    const total = Object.values(byProtocol).reduce((sum, count) => sum + count, 0);
    return { verdict: run.report?.verdict ?? `no report (exit ${run.exitCode})`, wallMs, byProtocol, total };
  } finally {
    rmSync(run.reportDir, { recursive: true, force: true });
  }
}

/** The sentence the docs quote, its numbers this run's (the test reads them back from it). */
export function quotedSentence(full: Measured, paced: Measured): string {
  const http1 = full.byProtocol['HTTP/1.1'] ?? 0;
  const http2 = full.byProtocol['HTTP/2'] ?? full.byProtocol['HTTP/2.0'] ?? 0;
  return (
    `A full run against the reference sends ${full.total} requests (${http1} over HTTP/1.1, ${http2} over HTTP/2); ` +
    `at \`--max-rps 4\` it takes ${seconds(paced.wallMs)} s.`
  );
}

if (process.argv[1] === import.meta.filename) {
  const load = loadavg()[0]?.toFixed(2) ?? '?';
  const full = await measure([]);
  const paced = await measure(['--max-rps', '4']);
  const row = (name: string, measured: Measured): string =>
    `| ${name} | ${measured.verdict} | ${measured.total} | ${Object.entries(measured.byProtocol)
      .map(([protocol, count]) => `${protocol}: ${count}`)
      .join(', ')} | ${seconds(measured.wallMs)} |`;
  const lines = [
    '# Requests per full run, and its time at `--max-rps 4`',
    '',
    `Written by \`npm run bench:run-requests\` (bench/run-requests.ts) on ${new Date().toISOString()}, load average ${load} at the start.`,
    "The suite against the embedded reference (both protocols it offers), unpaced and at `--max-rps 4`; requests counted from each run's exchanges.har; the wall time is of the whole `tenant-auth-conformance run`, Playwright's start included.",
    '',
    '| run | verdict | requests | by protocol | wall s |',
    '| --- | --- | --- | --- | --- |',
    row('unpaced', full),
    row('`--max-rps 4`', paced),
    '',
    quotedSentence(full, paced),
    '',
  ];
  writeFileSync(RESULTS_FILE, await format(lines.join('\n'), { parser: 'markdown' }));
  console.log(lines.join('\n'));
}
