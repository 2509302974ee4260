// Runs the reference server's command line (`node --import tsx reference-server/cli/cli.ts`) as a
// child process, the way `npm start` does, and collects what it prints. Every wait is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './reference-client.ts';

export const CLI_PATH = join(REPO_ROOT, 'reference-server', 'cli', 'cli.ts');
/**
 * How long a start-up or an exit may take before the test fails: a guard against hangs, generous
 * because tsx compiles on first use and the machine may be busy.
 */
export const CLI_TIMEOUT_MS = 60_000;

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout; rejects on exit or time-out. */
  waitForStdout(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<CliExit>;
  /** Stops the process if it still runs (for `after` hooks). */
  kill(): void;
}

/** An environment without the CLI's own variables, so that the caller's shell cannot change a test. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('REFERENCE_')) env[name] = value;
  }
  return { ...env, ...extra };
}

export function startCli(args: string[], env: NodeJS.ProcessEnv = cleanEnv()): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<CliExit>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const killTimer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS * 2);
  killTimer.unref();
  void exited.then(() => clearTimeout(killTimer));

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    waitForStdout: (pattern) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `No ${String(pattern)} in the CLI's output within ${CLI_TIMEOUT_MS} ms.\n${stdout}\n${stderr}`,
            ),
          );
        }, CLI_TIMEOUT_MS);
        const check = (): void => {
          const match = stdout.match(pattern);
          if (match) {
            cleanup();
            resolve(match);
          }
        };
        const onExit = (): void => {
          cleanup();
          reject(new Error(`The CLI exited before printing ${String(pattern)}.\n${stdout}\n${stderr}`));
        };
        const cleanup = (): void => {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          child.off('close', onExit);
        };
        child.stdout?.on('data', check);
        child.on('close', onExit);
        check();
      }),
  };
}

/** Runs the CLI to its end (for invocations that must exit by themselves). */
export async function runCli(args: string[], env?: NodeJS.ProcessEnv): Promise<CliExit> {
  const cli = startCli(args, env);
  const timer = setTimeout(() => cli.kill(), CLI_TIMEOUT_MS);
  try {
    return await cli.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A stack trace line, which no expected failure may print. */
export const STACK_TRACE = /^\s+at .+(:\d+:\d+\)?|\(node:.+\))$/m;
