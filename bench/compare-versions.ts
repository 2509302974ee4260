// `npm run bench:versions -- REF`: the reference server of this working tree against the one of
// another commit (REF: `HEAD~1`, a tag, a hash), and both against the bare baseline, alternating
// in one run, for each keep-alive scenario of `npm run bench`. Two separate bench runs on a shared
// machine differ by more than most changes do, so a change meant to make the server cheaper is
// judged by this instead. Writes bench/versions-results.md and prints it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/store/fixtures.ts';
import { apiHostname } from '../reference-server/http/hosts.ts';
import { LoadChild, ServerChild, type Autocannon } from './children.ts';
import {
  DOMAIN,
  answerName,
  keepAliveRequest,
  keepAliveScenarios,
  measureLoad,
  rotated,
  verifiedAnswer,
  mirrorOnBare,
  type Answer,
} from './keep-alive.ts';
import { positiveNumber } from './env-settings.ts';
import type { ServerConfig } from './protocol.ts';
import { median, range, whole } from './numbers.ts';
import { mean, pairedRatios, validity, type Measured } from './report.ts';

const PROJECT_ROOT = join(import.meta.dirname, '..');
const RESULTS_FILE = join(import.meta.dirname, 'versions-results.md');
const USAGE = `Usage: npm run bench:versions -- REF

Measures the reference server of this working tree against the one of commit REF (HEAD~1, a tag,
a hash) and both against a bare node:https server, alternating, in one run. Writes
bench/versions-results.md. BENCH_ROUNDS (default 5) and BENCH_SECONDS (default 3) set the number
and length of the alternating runs.`;

/** What both trees' bench/children.ts offer: the same class, loaded from two places. */
interface ServerStarter {
  start(config: ServerConfig, what: string): Promise<Pick<ServerChild, 'port' | 'usage' | 'stop'>>;
}

const VERSIONS = ['bare', 'ref', 'working'] as const;
type Version = (typeof VERSIONS)[number];

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const [ref, ...extra] = args;
  if (ref === undefined || extra.length > 0) {
    console.error(`bench:versions: give exactly one commit to compare with.\n\n${USAGE}`);
    return 2;
  }
  let settings: { rounds: number; seconds: number };
  try {
    settings = {
      rounds: Math.ceil(positiveNumber('BENCH_ROUNDS') ?? 5),
      seconds: positiveNumber('BENCH_SECONDS') ?? 3,
    };
  } catch (error) {
    console.error(`bench:versions: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  if (ref.startsWith('-')) {
    console.error(`bench:versions: "${ref}" is an option, not a commit.\n\n${USAGE}`);
    return 2;
  }
  const commit = commitOf(ref);
  if (!commit) {
    console.error(`bench:versions: "${ref}" is not a commit of this repository (git rev-parse failed).`);
    return 2;
  }

  // Registrations of worktrees whose directories are gone (a run killed with SIGKILL) go first.
  git('worktree', 'prune');
  const checkout = mkdtempSync(join(tmpdir(), 'bench-versions-'));
  const certDirs = {
    ref: mkdtempSync(join(tmpdir(), 'bench-certs-')),
    working: mkdtempSync(join(tmpdir(), 'bench-certs-')),
  };
  const removeCheckout = (): void => {
    try {
      if (existsSync(join(checkout, '.git'))) git('worktree', 'remove', '--force', checkout);
    } catch (error) {
      console.error(`bench:versions: could not remove the worktree ${checkout}: ${String(error)}`);
    }
    for (const dir of [checkout, certDirs.ref, certDirs.working])
      rmSync(dir, { recursive: true, force: true });
  };
  // Ctrl-C: the child processes get the signal too; the worktree is removed before exiting.
  const interrupted = (): void => {
    removeCheckout();
    process.exit(130);
  };
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);
  const autocannon: Autocannon = new LoadChild('load-process.ts', 'autocannon');
  const servers: Partial<Record<Version, Pick<ServerChild, 'port' | 'usage' | 'stop'>>> = {};
  try {
    git('worktree', 'add', '--detach', checkout, commit);
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');
    const otherChildren = join(checkout, 'bench', 'children.ts');
    if (!existsSync(otherChildren)) {
      console.error(
        `bench:versions: ${ref} has no bench/children.ts; choose a commit made after the bench was.`,
      );
      return 2;
    }
    const other = (await import(pathToFileURL(otherChildren).href)) as { ServerChild: ServerStarter };
    servers.ref = await other.ServerChild.start(
      { kind: 'reference', certDir: certDirs.ref },
      `server of ${ref}`,
    );
    servers.working = await ServerChild.start(
      { kind: 'reference', certDir: certDirs.working },
      'working tree',
    );
    const bare = await ServerChild.start(
      { kind: 'bare', certDir: certDirs.working, tenantIds: [] },
      'bare server',
    );
    servers.bare = bare;

    const host = apiHostname('acme', 'production', DOMAIN);
    // Each server has a CA of its own (REF's tree may make certificates differently).
    const ca = {
      ref: readFileSync(join(certDirs.ref, 'ca.crt'), 'utf8'),
      working: readFileSync(join(certDirs.working, 'ca.crt'), 'utf8'),
    };
    const rows: Row[] = [];
    for (const scenario of keepAliveScenarios(loadFixtures(DEFAULT_FIXTURES_FILE))) {
      const working = await verifiedAnswer(servers.working.port, host, ca.working, scenario.authorization);
      const expected: Record<Version, Answer> = {
        working,
        ref: await verifiedAnswer(servers.ref.port, host, ca.ref, scenario.authorization),
        // Bare answers exactly what the working tree answers.
        bare: working,
      };
      await mirrorOnBare(bare, expected.working, scenario, host, ca.working);
      const runs: Record<Version, Measured[]> = { bare: [], ref: [], working: [] };
      for (let round = 0; round < settings.rounds; round += 1) {
        // A different one goes first in each round, so that none always follows another.
        for (const version of rotated(VERSIONS, round)) {
          const server = servers[version];
          if (!server) throw new Error(`The ${version} server is not running.`);
          const request = keepAliveRequest(server.port, host, scenario, expected[version], settings.seconds);
          runs[version].push(await measureLoad(autocannon, server, request));
        }
      }
      const sameAnswer =
        expected.ref.status === expected.working.status && expected.ref.body === expected.working.body;
      rows.push({
        scenario: scenario.name,
        answer: answerName(expected.working),
        sameAnswer,
        runs,
        load: loadavg()[0] ?? 0,
      });
      console.error(`[bench:versions] ${scenario.name}: done`);
    }
    const results = render(ref, commit, settings, rows);
    const formatted = await format(results, { ...(await resolveConfig(RESULTS_FILE)), parser: 'markdown' });
    writeFileSync(RESULTS_FILE, formatted);
    console.log(formatted);
    console.log(`Written to ${RESULTS_FILE}`);
    return 0;
  } finally {
    // Every step is attempted whatever the others do: a server that died cannot be stopped, and
    // the worktree must still go.
    await Promise.allSettled(Object.values(servers).map((server) => server.stop()));
    autocannon.stop();
    removeCheckout();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

interface Row {
  scenario: string;
  answer: string;
  /** Whether REF's server gave the same answer as the working tree's (if not, each gets its own). */
  sameAnswer: boolean;
  runs: Record<Version, Measured[]>;
  load: number;
}

function render(
  ref: string,
  commit: string,
  settings: { rounds: number; seconds: number },
  rows: readonly Row[],
): string {
  const ratio = (values: number[]): string => `${median(values).toFixed(2)} (${range(values)})`;
  const rps = (run: Measured): number => run.load.requestsPerSecond;
  const cpu = (run: Measured): number => run.cpuMicrosPerRequest;
  const lines = [
    '# Reference server: working tree against another commit',
    '',
    `Written by \`npm run bench:versions -- ${ref}\` (bench/compare-versions.ts) on ${new Date().toISOString()}; ` +
      `${ref} is commit ${commit.slice(0, 12)}. See [README.md](README.md) for the method.`,
    '',
    `Each round: bare, the server of ${ref}, the working tree's server, ${settings.seconds} s of keep-alive load each (${settings.rounds} rounds). ` +
      'Requests/s and CPU µs per request are means of the rounds; each ratio is the median of the ' +
      "rounds' ratios, with their lowest and highest. CPU working ÷ ref below 1 means the working tree is cheaper.",
    '',
    `| requests | answer | bare req/s | ${ref} req/s | working req/s | ${ref} ÷ bare req/s | working ÷ bare req/s | ${ref} CPU µs/req | working CPU µs/req | CPU working ÷ ${ref} | load |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const { bare, ref: old, working } = row.runs;
    lines.push(
      `| ${row.scenario} | ${row.answer}${row.sameAnswer ? '' : ` (${ref} answers otherwise)`} | ` +
        `${whole(mean(bare).rps)} | ${whole(mean(old).rps)} | ${whole(mean(working).rps)} | ` +
        `${ratio(pairedRatios(old, bare, rps))} | ${ratio(pairedRatios(working, bare, rps))} | ` +
        `${whole(mean(old).cpu)} | ${whole(mean(working).cpu)} | ${ratio(pairedRatios(working, old, cpu))} | ` +
        `${row.load.toFixed(2)} |`,
    );
  }
  lines.push(
    '',
    ...validity(rows.flatMap((row) => [...row.runs.bare, ...row.runs.ref, ...row.runs.working])),
    '',
  );
  return lines.join('\n');
}

function commitOf(ref: string): string | undefined {
  try {
    return git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`).trim() || undefined;
  } catch {
    return undefined;
  }
}

function git(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench:versions: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
