// The judge is tested like what it judges: StrykerJS mutates each file of conformance/judging/,
// one file per Stryker run (stryker.judging.config.json: the command runner, concurrency 1), and
// runs against every mutant the judging unit tests that load the file (bench/mutation/
// judging-test-files.ts; all of them in one process, bench/mutation/judging-tests.ts). A mutant no
// test kills is a decision of the judge that no fast test pins down. The scores go to
// bench/mutation-judging-results.md, a row per file; a run of some files keeps the other rows as
// they were. Not part of `npm test`: each mutant is a test run.
//   npm run mutation:judging                                      every file
//   npm run mutation:judging -- conformance/judging/checks.ts     the files named
//   npm run mutation:judging -- --survivors conformance/judging/checks.ts
//        only the mutants the file's last run left alive, again (after new tests)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { dirname, join, relative } from 'node:path';
import { testsLoading } from './mutation/judging-test-files.ts';
import { merged, rangesOf, undetected, type MutantResult } from './mutation/survivors.ts';

const ROOT = join(import.meta.dirname, '..');
const CONFIG = 'stryker.judging.config.json';
const REPORTS = join(ROOT, 'reports', 'mutation');
const JSON_REPORT = join(REPORTS, 'judging.json');
const RESULTS = join(ROOT, 'bench', 'mutation-judging-results.md');
/** What the goal asks of every file. */
const GOAL = 85;
/** One file's Stryker run, sandbox copy included, bounded: 2 hours is far beyond the largest. */
const RUN_TIMEOUT_MS = 2 * 60 * 60 * 1000;

interface Row {
  file: string;
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  score: number;
  date: string;
}

/** Stryker's score: mutants detected (killed or timed out) of the mutants that could run. */
export function rowOf(file: string, mutants: readonly MutantResult[], date: string): Row {
  const count = (status: string) => mutants.filter((mutant) => mutant.status === status).length;
  const killed = count('Killed');
  const timeout = count('Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const valid = killed + timeout + survived + noCoverage;
  return {
    file,
    mutants: valid,
    killed,
    timeout,
    survived,
    noCoverage,
    score: valid === 0 ? 100 : (100 * (killed + timeout)) / valid,
    date,
  };
}

function line(row: Row): string {
  const cells = [
    `\`${row.file}\``,
    row.mutants,
    row.killed,
    row.timeout,
    row.survived,
    row.noCoverage,
    row.mutants === 0 ? 'no mutant' : `${row.score.toFixed(1)} %`,
    row.mutants === 0 || row.score >= GOAL ? 'yes' : '**no**',
    row.date,
  ];
  return `| ${cells.join(' | ')} |`;
}

/** The rows of the results file as it is, by file. */
function previousRows(): Map<string, string> {
  if (!existsSync(RESULTS)) return new Map();
  const text = readFileSync(RESULTS, 'utf8');
  const table = text.includes('\n## ') ? text.slice(0, text.indexOf('\n## ')) : text;
  const rows = table.split('\n').flatMap((line) => {
    const file = /^\| `([^`]+)`\s*\|/.exec(line)?.[1];
    return file ? [[file, line] as const] : [];
  });
  return new Map(rows);
}

function judgingFiles(): string[] {
  return readdirSync(join(ROOT, 'conformance', 'judging'))
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => `conformance/judging/${name}`);
}

/**
 * The base configuration with the command that runs the tests loading `file`: a test that never
 * loads it can't kill its mutants, and each test file loaded is compiled again for every mutant.
 */
function configFor(file: string): string {
  const config = JSON.parse(readFileSync(join(ROOT, CONFIG), 'utf8')) as {
    commandRunner: { command: string };
  };
  const tests = testsLoading(file, ROOT);
  config.commandRunner.command = [config.commandRunner.command, ...tests].join(' ');
  mkdirSync(REPORTS, { recursive: true });
  const path = join(REPORTS, 'stryker.judging.run.json');
  writeFileSync(path, JSON.stringify(config, null, 2));
  console.log(`${file}: ${tests.length === 0 ? 'no test loads it; every judging test' : tests.join(' ')}`);
  return relative(ROOT, path);
}

/** Where a file's last full report is kept, with the source it was made from. */
const lastRunOf = (file: string): string => join(REPORTS, 'last', `${file.replaceAll('/', '_')}.json`);

interface LastRun {
  source: string;
  mutants: MutantResult[];
}

/** The mutants of `file` in the report Stryker just wrote, and the source it mutated. */
function reported(file: string): LastRun {
  const report = JSON.parse(readFileSync(JSON_REPORT, 'utf8')) as {
    files: Record<string, { source: string; mutants: MutantResult[] }>;
  };
  const entry = Object.entries(report.files).find(([path]) => relative(ROOT, join(ROOT, path)) === file);
  return { source: entry?.[1].source ?? '', mutants: entry?.[1].mutants ?? [] };
}

/** The last run's mutants of `file`, when it mutated the file as it is now; else undefined. */
function lastRun(file: string): LastRun | undefined {
  const path = lastRunOf(file);
  if (!existsSync(path)) return undefined;
  const last = JSON.parse(readFileSync(path, 'utf8')) as LastRun;
  return last.source === readFileSync(join(ROOT, file), 'utf8') ? last : undefined;
}

function stryker(file: string, ranges: readonly string[]): void {
  // Stryker's progress shows as it runs (a file of 200 mutants takes many minutes).
  const run = spawnSync('npx', ['stryker', 'run', configFor(file), '--mutate', ranges.join(',')], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: RUN_TIMEOUT_MS,
  });
  if (run.status !== 0)
    throw new Error(`Stryker failed on ${file} (exit ${run.status}): its output is above`);
}

/**
 * Every mutant of `file`, or with `survivorsOnly` those the last run of the file as it is left
 * undetected (bench/mutation/survivors.ts), merged into that run's results.
 */
function mutate(file: string, survivorsOnly: boolean): Row {
  const started = Date.now();
  const last = survivorsOnly ? lastRun(file) : undefined;
  if (survivorsOnly && !last) console.log(`${file}: no run of the file as it is now, so every mutant runs`);
  const again = last ? undetected(last.mutants) : [];
  let mutants: MutantResult[];
  if (last && again.length === 0) mutants = last.mutants;
  else {
    stryker(file, last ? rangesOf(file, again) : [file]);
    const run = reported(file);
    mutants = last ? merged(last.mutants, run.mutants) : run.mutants;
    mkdirSync(dirname(lastRunOf(file)), { recursive: true });
    writeFileSync(lastRunOf(file), JSON.stringify({ source: run.source, mutants }));
  }
  const row = rowOf(file, mutants, new Date().toISOString().slice(0, 10));
  // What no test pins down, for the next test to write.
  for (const mutant of mutants.filter((candidate) => candidate.status === 'Survived'))
    console.log(
      `  survived ${file}:${mutant.location?.start.line ?? '?'} ${mutant.mutatorName ?? ''} → ${JSON.stringify(mutant.replacement ?? '')}`,
    );
  console.log(`${line(row)} ${Math.round((Date.now() - started) / 1000)} s`);
  return row;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const survivorsOnly = args.includes('--survivors');
  const asked = args.filter((arg) => arg !== '--survivors');
  const files = asked.length > 0 ? asked : judgingFiles();
  const rows = previousRows();
  for (const file of files) {
    rows.set(file, line(mutate(file, survivorsOnly)));
    await writeResults(rows);
  }
}

/** The sections after the table (`## …`, written by hand: a baseline, notes), kept as they are. */
function keptSections(): string {
  const text = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '';
  const start = text.indexOf('\n## ');
  return start === -1 ? '' : text.slice(start);
}

async function writeResults(rows: ReadonlyMap<string, string>): Promise<void> {
  const sections = keptSections();
  const text = [
    '# Mutation scores of the judging code',
    '',
    'Written by `npm run mutation:judging` (bench/mutation-judging.ts): StrykerJS 8 (command runner,',
    `Node ${process.versions.node}, concurrency 1) mutates one file of \`conformance/judging/\` at a time and runs`,
    "the judging code's unit tests that load the file (of `tests/conformance/judging/*.test.ts` and",
    '`tests/conformance/pages.test.ts`) against each mutant. Score: mutants killed or timed out of those',
    'that ran. Goal: ≥ 85 % for every file.',
    '',
    '| file | mutants | killed | timed out | survived | no coverage | score | ≥ 85 % | measured |',
    '|---|---|---|---|---|---|---|---|---|',
    ...[...rows.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, text]) => text),
  ].join('\n');
  // Formatted as the repository's format check wants it.
  const options = { ...(await resolveConfig(RESULTS)), filepath: RESULTS };
  writeFileSync(RESULTS, await format(`${text}\n${sections}`, options));
}

if (process.argv[1] === import.meta.filename) await main();
