// The static checks of `npm test` (types, lint, import cycles, format, generated files, the
// OpenAPI document), run side by side: each is one process that keeps one core busy, so run one
// after the other they would leave every other core idle. Each check's output is printed whole when it
// ends, so outputs never interleave; the exit code is 1 if any check failed, after all have ended.
//   node --import tsx scripts/checks.ts
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

interface Check {
  name: string;
  command: string;
  args: readonly string[];
}

const REPO_ROOT = join(import.meta.dirname, '..');
/** A bound for a check that hangs; the slowest (lint) takes well under a minute on two idle cores. */
const CHECK_TIMEOUT_MS = 10 * 60_000;
const tsx = (script: string, ...args: string[]): Check => ({
  name: `${script} ${args.join(' ')}`.trim(),
  command: process.execPath,
  args: ['--import', 'tsx', script, ...args],
});
const npmRun = (script: string): Check => ({
  name: `npm run ${script}`,
  command: 'npm',
  args: ['run', script],
});

// Slowest first, so that the shorter ones fill the other cores meanwhile.
const CHECKS: readonly Check[] = [
  npmRun('lint'),
  npmRun('typecheck'),
  npmRun('format:check'),
  npmRun('check:cycles'),
  tsx('scripts/generate-types.ts', '--check'),
  tsx('scripts/generate-openapi.ts', '--check'),
  npmRun('lint:openapi'),
];

interface Outcome {
  check: Check;
  ok: boolean;
}

/** The process groups of the checks still running, ended with this process when it is interrupted. */
const running = new Set<number>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const group of running) killGroup(group);
    process.exit(130);
  });
}

function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function runCheck(check: Check): Promise<Outcome> {
  // Its own process group, so that a time-out ends what npm started too, not only npm.
  const child = spawn(check.command, check.args, {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const group = child.pid;
  if (group !== undefined) running.add(group);
  const timer = setTimeout(() => {
    if (group !== undefined) killGroup(group);
  }, CHECK_TIMEOUT_MS);
  return new Promise((done) => {
    let finished = false;
    const finish = (ok: boolean, note = ''): void => {
      // A process that cannot start reports 'error' and may report 'close' after it.
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (group !== undefined) running.delete(group);
      process.stdout.write(`${ok ? 'ok' : 'FAILED'}: ${check.name}${note}\n${output}`);
      done({ check, ok });
    };
    child.on('error', (error) => finish(false, ` (${error.message})`));
    child.on('close', (code, signal) => finish(code === 0, signal ? ` (ended by ${signal})` : ''));
  });
}

async function runAll(checks: readonly Check[], atOnce: number): Promise<Outcome[]> {
  const queue = [...checks];
  const outcomes: Outcome[] = [];
  const lane = async (): Promise<void> => {
    for (let check = queue.shift(); check; check = queue.shift()) outcomes.push(await runCheck(check));
  };
  await Promise.all(Array.from({ length: Math.max(1, atOnce) }, lane));
  return outcomes;
}

const failed = (await runAll(CHECKS, availableParallelism())).filter((outcome) => !outcome.ok);
if (failed.length > 0) {
  console.error(
    `\n${failed.length} check(s) failed: ${failed.map((outcome) => outcome.check.name).join(', ')}`,
  );
  process.exitCode = 1;
}
