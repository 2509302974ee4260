// The sections of bench/results.md on full conformance runs: `npm run conformance` against the
// embedded server, and `playwright test` with the suite's config beside Playwright's own floor —
// the same config with one empty spec (bench/floor.config.ts) — run alternately.
import type { ConformanceRow, ConformanceRun, FloorPair } from './conformance-timing.ts';
import { load, median, range, seconds } from './numbers.ts';

/** Goal: a full run takes at most twice the floor's wall time. */
export const FLOOR_GOAL = 2;

export function floorSection(pair: FloorPair): string[] {
  const ok = (runs: readonly ConformanceRun[]): ConformanceRun[] => runs.filter((run) => !run.failure);
  const ratios = pair.suite.flatMap((run, index) => {
    const floor = pair.floor[index];
    return floor && !run.failure && !floor.failure ? [run.wallMs / floor.wallMs] : [];
  });
  const row = (name: string, runs: readonly ConformanceRun[]): string => {
    const cpu = ok(runs).flatMap((run) => (run.cpuMs === undefined ? [] : [run.cpuMs]));
    const wall = ok(runs).map((run) => run.wallMs);
    return (
      `| ${name} | ${runs.map((run) => `${seconds(run.wallMs)} (${run.load.toFixed(2)})`).join(', ')} | ` +
      `${wall.length > 0 ? seconds(median(wall)) : '–'} | ${cpu.length > 0 ? seconds(median(cpu)) : '–'} | ${runs.length - wall.length} |`
    );
  };
  const ratio = median(ratios);
  const failures = [
    ...pair.suite.map((run) => ['suite', run] as const),
    ...pair.floor.map((run) => ['floor', run] as const),
  ].flatMap(([name, run]) => (run.failure ? [`${name}: ${run.failure}`] : []));
  return [
    "## Full conformance run against Playwright's floor",
    '',
    "`playwright test` itself (no runner around it, default workers) with the suite's config against the",
    'embedded server, and with the same config — set-up project, preflight, reporters — and one empty spec',
    '(`bench/floor.config.ts`): what every rule together adds to what any run costs. The two alternate;',
    `the ratio is the median of each pair's suite ÷ floor wall time, with its range (goal ≤ ${FLOOR_GOAL}).`,
    '',
    '| run | runs s (load) | median s | CPU s per run (median) | failed runs |',
    '|---|---|---:|---:|---:|',
    row('suite', pair.suite),
    row('floor (empty spec)', pair.floor),
    '',
    ratios.length > 0
      ? `Suite ÷ floor: **${ratio.toFixed(2)}** (${range(ratios)})${ratio <= FLOOR_GOAL ? '' : ' ⚠ above the goal'}.`
      : 'Suite ÷ floor: no pair of valid runs.',
    '',
    ...(failures.length > 0 ? [`**Failed runs: ${failures.join('; ')}.**`, ''] : []),
  ];
}

export function conformanceSection(rows: readonly ConformanceRow[]): string[] {
  const lines = [
    '## Full conformance run against the embedded server',
    '',
    'Wall time of `npm run conformance` (`tsx conformance/run/run.ts`, without npm itself, reports into a',
    'temporary directory) from its start to its exit: Playwright starts the reference server through',
    'its set-up project, runs every rule and writes the reports. CPU: user + system time of the run and all its',
    'processes (GNU time). Every run must end with VERDICT: CONFORMANT; one that does not is marked failed.',
    '',
    '| workers | runs s (load) | median s | CPU s per run (median) | failed runs |',
    '|---|---|---:|---:|---:|',
  ];
  for (const row of rows) {
    const ok = row.runs.filter((run) => run.failure === undefined);
    const cpu = ok.flatMap((run) => (run.cpuMs === undefined ? [] : [run.cpuMs]));
    lines.push(
      `| ${row.variant} (${row.workers}) | ${row.runs.map((run) => `${seconds(run.wallMs)} (${load(run.load)})`).join(', ')} | ` +
        `${ok.length > 0 ? seconds(median(ok.map((run) => run.wallMs))) : '–'} | ${cpu.length > 0 ? seconds(median(cpu)) : '–'} | ` +
        `${row.runs.length - ok.length} |`,
    );
  }
  const failures = rows.flatMap((row) =>
    row.runs.flatMap((run) => (run.failure ? [`${row.variant}: ${run.failure}`] : [])),
  );
  lines.push('', ...(failures.length > 0 ? [`**Failed runs: ${failures.join('; ')}.**`, ''] : []));
  return lines;
}
