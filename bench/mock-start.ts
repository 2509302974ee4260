// `npm run bench:mock`: how long `startReferenceMock()` (library/mock.ts, the reference server
// in-process) takes to start with cached certificates, the start a team's test file pays, and to
// close. The module is imported once first (its cost is printed apart); the certificate directory
// is filled by a first start, then each measured start reuses it. Then the start of a test that
// gives a new certificate directory each time: a copy of the user's cached certificates (the
// default) against new ones made (`freshCertificates: true`), taking turns. Each start's CPU time
// (user + system) is measured beside its wall time: on a machine shared with other work the wall
// time is mostly waiting for a core, the CPU time is the start's own cost. Writes
// bench/mock-results.md.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'prettier';
import { median, ms, range } from './numbers.ts';

const RUNS = 15;
/** Starts with a new certificate directory, of each kind. */
const FRESH_RUNS = 9;
/** The goal the in-process mock is held to: a start with cached certificates (its CPU time). */
const GOAL_MS = 30;

/** The process's CPU time so far, user and system, in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const loadAtStart = loadavg()[0]?.toFixed(2);
const importStarted = performance.now();
const { startReferenceMock } = await import('../library/mock.ts');
const importMs = performance.now() - importStarted;

const certDir = mkdtempSync(join(tmpdir(), 'bench-mock-certs-'));
try {
  const first = performance.now();
  await (await startReferenceMock({ certDir })).close();
  const generatedMs = performance.now() - first;
  const starts: number[] = [];
  const startCpu: number[] = [];
  const closes: number[] = [];
  const firstAnswers: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const cpuBefore = cpuMs();
    const mock = await startReferenceMock({ certDir });
    startCpu.push(cpuMs() - cpuBefore);
    starts.push(performance.now() - started);
    const asked = performance.now();
    const response = await mock.fetch(`${mock.baseUrl('acme')}/customers`);
    await response.text();
    firstAnswers.push(performance.now() - asked);
    const closing = performance.now();
    await mock.close();
    closes.push(performance.now() - closing);
  }
  // A new certificate directory per start, as a test that isolates its files does.
  const copied: number[] = [];
  const made: number[] = [];
  for (let run = 0; run < FRESH_RUNS; run += 1) {
    for (const [fresh, times] of [
      [false, copied],
      [true, made],
    ] as const) {
      const started = performance.now();
      const mock = await startReferenceMock({
        certDir: join(certDir, `new-${run}-${fresh}`),
        freshCertificates: fresh,
      });
      times.push(performance.now() - started);
      await mock.close();
    }
  }
  const startMedian = median(starts);
  const cpuMedian = median(startCpu);
  const lines = [
    '# The reference server in-process: start with cached certificates',
    '',
    `Written by \`npm run bench:mock\` on ${new Date().toISOString()} (Node ${process.version}, load ${loadAtStart} at the start, ${loadavg()[0]?.toFixed(2)} at the end, ${cpus().length} cores).`,
    `\`startReferenceMock({ certDir })\` ${RUNS} times in one process, the certificate directory filled by a first start;`,
    "the module's import is paid once per test file and shown apart; the last two rows take turns, " +
      `${FRESH_RUNS} starts each. Goal: a start within ` +
      `${GOAL_MS} ms of CPU.`,
    '',
    '| step | runs, ms | median, ms |',
    '| --- | --- | --- |',
    `| import of library/mock.ts (once) | ${ms(importMs)} | ${ms(importMs)} |`,
    `| first start in the process, a new certDir (filled from the user's certificate cache, which it makes if there is none) | ${ms(generatedMs)} | ${ms(generatedMs)} |`,
    `| start, cached certificates | ${range(starts)} | ${ms(startMedian)} |`,
    `| start, cached certificates: its CPU time (user + system) | ${range(startCpu)} | ${ms(cpuMedian)} |`,
    `| first answer (GET /customers over its fetch, new TLS connection) | ${range(firstAnswers)} | ${ms(median(firstAnswers))} |`,
    `| close | ${range(closes)} | ${ms(median(closes))} |`,
    `| start, a new certDir (the user's cached certificates copied; the default) | ${range(copied)} | ${ms(median(copied))} |`,
    `| start, a new certDir with \`freshCertificates: true\` (a CA and a certificate made) | ${range(made)} | ${ms(median(made))} |`,
    '',
    `A new certificate directory per start: median ${ms(median(copied))} ms with the cached certificates copied, ${ms(median(made))} ms making new ones (${(median(made) / median(copied)).toFixed(1)}×).`,
    `Start with cached certificates: median ${ms(cpuMedian)} ms of CPU — ${cpuMedian <= GOAL_MS ? 'within' : 'OVER'} the ${GOAL_MS} ms goal (${ms(startMedian)} ms of wall time at this load).`,
    '',
  ];
  // Formatted as the repository's Markdown is (npm run format:check).
  writeFileSync(
    join(import.meta.dirname, 'mock-results.md'),
    await format(lines.join('\n'), { parser: 'markdown' }),
  );
  console.log(lines.join('\n'));
} finally {
  rmSync(certDir, { recursive: true, force: true });
}
