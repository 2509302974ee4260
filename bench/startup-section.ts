// The start-up section of bench/results.md: time, CPU and memory from spawning the server to its
// first answer, tsx and compiled, against the installed package's goals. `--startup-only` rewrites
// this section alone, hence `replaceSection` (which `--http2-only` uses too).
import { load, median, mib, whole } from './numbers.ts';

export interface StartupRow {
  /** How the server was started: tsx from the repository, or the compiled package. */
  server: string;
  compiled: boolean;
  certificate: string;
  runsMs: number[];
  /** The server process's CPU time up to its first answer, per run. */
  cpuMs: number[];
  /** Resident memory after a second at rest, per run. */
  rssBytes: number[];
  load: number;
}

export const STARTUP_HEADING = '## Start-up time to the first answered request';
/** What the installed package aims at (README, "Use it without cloning"). */
const STARTUP_GOALS = { compiledCachedMs: 300, compiledRestMiB: 60 } as const;

export function startupSection(
  rows: readonly StartupRow[],
  run: { date: string; load: number } | undefined = undefined,
): string[] {
  const compiledCached = rows.find((row) => row.compiled && row.certificate.startsWith('cached'));
  const tsxCached = rows.find((row) => !row.compiled && row.certificate.startsWith('cached'));
  const lines = [
    STARTUP_HEADING,
    '',
    ...(run === undefined
      ? []
      : [
          `Measured alone by \`npm run bench -- --startup-only\` on ${run.date}, load ${load(run.load)} at its start.`,
          '',
        ]),
    'From spawning the server (without npm or npx in front) to the first 200 answer of GET /v1/customers;',
    '"generated" starts with an empty certificate directory. CPU: the server process\'s user + system time',
    'up to that answer. RSS: its resident memory after one more second at rest, with the reference fixtures.',
    'tsx runs `node --import tsx reference-server/cli/cli.ts` (what `npm start` runs in a clone); compiled runs',
    '`node dist/cli/main.js serve` (what the installed `tenant-auth-conformance serve` runs), built just before.',
    '',
    '| server | certificate | runs ms | median ms | CPU ms (median) | RSS MiB (median) | load |',
    '|---|---|---|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.server} | ${row.certificate} | ${row.runsMs.map(whole).join(', ')} | ${whole(median(row.runsMs))} | ` +
        `${row.cpuMs.length > 0 ? whole(median(row.cpuMs)) : '–'} | ${row.rssBytes.length > 0 ? mib(median(row.rssBytes)) : '–'} | ${load(row.load)} |`,
    ),
    '',
  ];
  if (compiledCached && tsxCached) {
    const ratio = (compiled: number, tsx: number): string => (tsx > 0 ? (compiled / tsx).toFixed(2) : '–');
    lines.push(
      `Compiled, cached certificate: median ${whole(median(compiledCached.runsMs))} ms to the first answer ` +
        `(goal ≤ ${STARTUP_GOALS.compiledCachedMs} ms) and ${mib(median(compiledCached.rssBytes))} MiB at rest ` +
        `(goal ≤ ${STARTUP_GOALS.compiledRestMiB} MiB). Compiled / tsx in this run: time ` +
        `${ratio(median(compiledCached.runsMs), median(tsxCached.runsMs))}, CPU ` +
        `${ratio(median(compiledCached.cpuMs), median(tsxCached.cpuMs))}, RSS ` +
        `${ratio(median(compiledCached.rssBytes), median(tsxCached.rssBytes))}.`,
      '',
    );
  }
  return lines;
}

/**
 * `markdown` with the section under `heading` (up to the next `## `) replaced by `section`; a
 * section not there yet goes right after the section under `after`, or else at the end.
 */
export function replaceSection(markdown: string, heading: string, section: string, after?: string): string {
  const start = markdown.indexOf(heading);
  if (start === -1) {
    const previous = after === undefined ? -1 : markdown.indexOf(after);
    const next = previous === -1 ? -1 : markdown.indexOf('\n## ', previous + (after ?? '').length);
    if (next === -1) return `${markdown.trimEnd()}\n\n${section}\n`;
    return `${markdown.slice(0, next + 1)}${section.trimEnd()}\n${markdown.slice(next)}`;
  }
  const next = markdown.indexOf('\n## ', start + heading.length);
  return `${markdown.slice(0, start)}${section.trimEnd()}\n${next === -1 ? '' : markdown.slice(next)}`;
}
