// Reads the log bench/process-cpu.mjs wrote and prints where the CPU went: by kind of process, and
// by the test file whose process started them (through the parent pids). Usage:
//   PROCESS_CPU_LOG=/tmp/cpu.log NODE_OPTIONS="--import $PWD/bench/process-cpu.mjs" npm run test:unit
//   npm run bench:process-cpu -- /tmp/cpu.log
import { readFileSync } from 'node:fs';

interface ProcessLine {
  cpuMs: number;
  pid: number;
  ppid: number;
  ran: string;
}

const KINDS: readonly (readonly [string, RegExp])[] = [
  ['Playwright worker', /workerProcessEntry/],
  ['Playwright runner', /playwright\/test\/cli\.js test|\.bin\/playwright test|playwright\/cli\.js test/],
  ['run command', /cli\/main\.(ts|js) run\b/],
  ['other command', /cli\/main\.(ts|js)/],
  ['reference server', /reference-server\/cli\/cli\.(ts|js)/],
  ['test file', /\.test\.ts/],
  ['npm', /\bnpm\b/],
  ['tsc', /\btsc\b/],
];

function kindOf(ran: string): string {
  return KINDS.find(([, pattern]) => pattern.test(ran))?.[0] ?? 'other';
}

function parse(text: string): ProcessLine[] {
  return text
    .trim()
    .split('\n')
    .flatMap((line) => {
      const [cpu, , pid, ppid, ran = ''] = line.split('\t');
      return cpu === undefined ? [] : [{ cpuMs: Number(cpu), pid: Number(pid), ppid: Number(ppid), ran }];
    });
}

/** The test file whose process is `line` or one of its ancestors (the runner of all files excluded). */
function testFileOf(line: ProcessLine, byPid: ReadonlyMap<number, ProcessLine>): string {
  let current: ProcessLine | undefined = line;
  for (let hops = 0; current && hops < 12; hops += 1) {
    const file = /tests\/\S+\.test\.ts/.exec(current.ran)?.[0];
    if (file && !current.ran.includes('--test-concurrency')) return file;
    current = byPid.get(current.ppid);
  }
  return '(no test file, or its parent exited first)';
}

function table(title: string, sums: Map<string, { cpuMs: number; count: number }>, rows: number): string {
  const sorted = [...sums].sort((a, b) => b[1].cpuMs - a[1].cpuMs).slice(0, rows);
  return [
    `| ${title} | processes | CPU s |`,
    '| --- | --: | --: |',
    ...sorted.map(([name, sum]) => `| ${name} | ${sum.count} | ${(sum.cpuMs / 1000).toFixed(1)} |`),
  ].join('\n');
}

function add(sums: Map<string, { cpuMs: number; count: number }>, key: string, cpuMs: number): void {
  const sum = sums.get(key) ?? { cpuMs: 0, count: 0 };
  sums.set(key, { cpuMs: sum.cpuMs + cpuMs, count: sum.count + 1 });
}

const file = process.argv[2];
if (!file) {
  console.error('Usage: npm run bench:process-cpu -- LOG (the file PROCESS_CPU_LOG named)');
  process.exit(2);
}
let lines: ProcessLine[];
try {
  lines = parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.error(`Cannot read ${file}: ${(error as Error).message}`);
  process.exit(2);
}
const byPid = new Map(lines.map((line) => [line.pid, line]));
const byKind = new Map<string, { cpuMs: number; count: number }>();
const byTestFile = new Map<string, { cpuMs: number; count: number }>();
for (const line of lines) {
  add(byKind, kindOf(line.ran), line.cpuMs);
  add(byTestFile, testFileOf(line, byPid), line.cpuMs);
}
const total = lines.reduce((sum, line) => sum + line.cpuMs, 0);
console.log(`${lines.length} processes, ${(total / 1000).toFixed(1)} s of CPU accounted for.\n`);
console.log(`${table('kind of process', byKind, 20)}\n`);
console.log(table('test file (with every process it started)', byTestFile, 25));
