// `npm run bench:import`: the CPU a process pays to import the package, as a test file of a user's
// does (`import … from 'tenant-auth-conformance'`), against a bare `node` in the same run.
// The kit is compiled into a temporary directory (as the published package runs it: JavaScript,
// no tsx), then each entry point is imported by fresh `node` processes, taking turns with the
// bare baseline so that a busy machine weighs on both alike. Each process reports its own CPU
// (process.cpuUsage(): user + system since it started), so the numbers are the import's, not
// the spawning's. Writes bench/import-results.md.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'prettier';
import { median, ms, range } from './numbers.ts';

const ROOT = resolve(import.meta.dirname, '..');
const ROUNDS = 15;
/** What importing the main entry point may cost over a bare `node`, in ms of CPU. */
const GOAL_MS = 150;

/** A Node process that runs `body` (an ES module) and prints its own CPU time in ms. */
function cpuOf(body: string): number {
  const script = `${body}\nconst used = process.cpuUsage(); console.log((used.user + used.system) / 1000);`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return Number(output.trim().split('\n').at(-1));
}

const work = mkdtempSync(join(tmpdir(), 'bench-import-'));
try {
  // The compiled kit beside the repository's dependencies, as an installed package has it.
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiled = spawnSync(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--outDir', join(work, 'dist')],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  // tsc emits despite type errors, which change no JavaScript: measured all the same, and said.
  if (compiled.status !== 0) {
    if (!existsSync(join(work, 'dist', 'library', 'index.js')))
      throw new Error(`tsc emitted nothing:\n${compiled.stdout}`);
    console.warn(`tsc reported type errors (measured all the same):\n${compiled.stdout.slice(0, 2000)}`);
  }
  for (const name of ['node_modules', 'package.json', 'fixtures', 'schemas', 'spec'])
    symlinkSync(join(ROOT, name), join(work, name));
  const entry = (path: string): string => pathToFileURL(join(work, 'dist', 'library', path)).href;
  const cases = [
    { name: '`tenant-auth-conformance` (main entry point)', body: `await import('${entry('index.js')}');` },
    {
      name: 'the same, then `startReferenceMock()` and `close()`',
      body: `const { startReferenceMock } = await import('${entry('index.js')}'); await (await startReferenceMock()).close();`,
    },
    {
      name: 'the same, then one request through `mock.fetch` (undici loaded)',
      body: `const { startReferenceMock } = await import('${entry('index.js')}'); const mock = await startReferenceMock(); await (await mock.fetch(mock.baseUrl('acme') + '/customers')).text(); await mock.close();`,
    },
  ];
  // Fills the default certificate directory once, so that no measured start makes certificates.
  cpuOf(cases[1]?.body ?? '');
  const baseline: number[] = [];
  const measured = cases.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round += 1) {
    baseline.push(cpuOf(''));
    cases.forEach((item, index) => measured[index]?.push(cpuOf(item.body)));
  }
  const bare = median(baseline);
  const importCost = median(measured[0] ?? []) - bare;
  const lines = [
    '# Importing the package: CPU over a bare `node`',
    '',
    `Written by \`npm run bench:import\` on ${new Date().toISOString()} (Node ${process.version}, load ${loadavg()[0]?.toFixed(2)} at the end).`,
    `The kit compiled to JavaScript (as published); ${ROUNDS} rounds, each a fresh \`node\` process per row, the rows taking turns;`,
    'each process reports its own CPU (user + system) when its work is done. The default certificate directory',
    `was filled first, so no start makes certificates. Goal: importing the main entry point costs at most ${GOAL_MS} ms of CPU over the bare process.`,
    '',
    '| process | CPU, ms (range) | median, ms | over bare `node`, ms | ratio to bare `node` |',
    '| --- | --- | --- | --- | --- |',
    `| bare \`node\` (\`node -e 0\`) | ${range(baseline)} | ${ms(bare)} | — | 1.00 |`,
    ...cases.map((item, index) => {
      const values = measured[index] ?? [];
      const middle = median(values);
      return `| ${item.name} | ${range(values)} | ${ms(middle)} | ${ms(middle - bare)} | ${(middle / bare).toFixed(2)} |`;
    }),
    '',
    `Import of the main entry point: ${ms(importCost)} ms of CPU over a bare \`node\` — ${importCost <= GOAL_MS ? 'within' : 'OVER'} the ${GOAL_MS} ms goal.`,
    '',
  ];
  writeFileSync(
    join(import.meta.dirname, 'import-results.md'),
    await format(lines.join('\n'), { parser: 'markdown' }),
  );
  console.log(lines.join('\n'));
} finally {
  rmSync(work, { recursive: true, force: true });
}
