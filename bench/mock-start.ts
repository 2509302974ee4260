// `npm run bench:mock`: how long `startReferenceMock()` (library/mock.ts, the reference server
// in-process) takes to start with cached certificates, the start a team's test file pays, and to
// close. The module is imported once first (its cost is printed apart); the certificate directory
// is filled by a first start, then each measured start reuses it. Writes bench/mock-results.md.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'prettier';
import { median, ms, range } from './numbers.ts';

const RUNS = 15;
/** The goal the in-process mock is held to: a start with cached certificates. */
const GOAL_MS = 100;

const importStarted = performance.now();
const { startReferenceMock } = await import('../library/mock.ts');
const importMs = performance.now() - importStarted;

const certDir = mkdtempSync(join(tmpdir(), 'bench-mock-certs-'));
try {
  const first = performance.now();
  await (await startReferenceMock({ certDir })).close();
  const generatedMs = performance.now() - first;
  const starts: number[] = [];
  const closes: number[] = [];
  const firstAnswers: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const mock = await startReferenceMock({ certDir });
    starts.push(performance.now() - started);
    const asked = performance.now();
    const response = await mock.fetch(`${mock.baseUrl('acme')}/customers`);
    await response.text();
    firstAnswers.push(performance.now() - asked);
    const closing = performance.now();
    await mock.close();
    closes.push(performance.now() - closing);
  }
  const startMedian = median(starts);
  const lines = [
    '# The reference server in-process: start with cached certificates',
    '',
    `Written by \`npm run bench:mock\` on ${new Date().toISOString()} (Node ${process.version}, load ${loadavg()[0]?.toFixed(2)} at the end).`,
    `\`startReferenceMock({ certDir })\` ${RUNS} times in one process, the certificate directory filled by a first start;`,
    "the module's import is paid once per test file and shown apart. Goal: a start within " +
      `${GOAL_MS} ms.`,
    '',
    '| step | runs, ms | median, ms |',
    '| --- | --- | --- |',
    `| import of library/mock.ts (once) | ${ms(importMs)} | ${ms(importMs)} |`,
    `| first start, certificates generated | ${ms(generatedMs)} | ${ms(generatedMs)} |`,
    `| start, cached certificates | ${range(starts)} | ${ms(startMedian)} |`,
    `| first answer (GET /customers over its fetch, new TLS connection) | ${range(firstAnswers)} | ${ms(median(firstAnswers))} |`,
    `| close | ${range(closes)} | ${ms(median(closes))} |`,
    '',
    `Start with cached certificates: median ${ms(startMedian)} ms — ${startMedian <= GOAL_MS ? 'within' : 'OVER'} the ${GOAL_MS} ms goal.`,
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
