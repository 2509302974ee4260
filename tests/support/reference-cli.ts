// The tests' one runner of a command line: the reference server's (`serve`'s own command,
// reference-server/cli/cli.ts), the kit's (`tenant-auth-conformance`, cli/main.ts) or any other
// script, as a child process, collecting what it prints. The kit's commands run compiled, as the
// package installs them (compiled-kit.ts); a TypeScript script through tsx. Every wait is bounded.
// A run of the suite itself goes through runConformance (conformance-run.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { compiled, KIT_BIN, nodeArguments } from './compiled-kit.ts';
import { REPO_ROOT } from './reference-client.ts';

/** The reference server's command, compiled. */
export const CLI_PATH = compiled('reference-server/cli/cli');
/** The kit's one executable, `tenant-auth-conformance`: the bin of package.json. */
export const MAIN_PATH = KIT_BIN;
/**
 * The subcommands of `tenant-auth-conformance`, written out here rather than read from cli/main.ts,
 * so that a subcommand lost from its table fails the tests that ask each for its --help.
 */
export const KIT_SUBCOMMANDS = [
  'run',
  'serve',
  'rules',
  'init',
  'keys',
  'compare',
  'merge',
  'verify',
  'keygen',
  'client-report',
] as const;
/**
 * How long a start-up or an exit may take before the test fails: a guard against hangs, generous
 * because the machine may be busy.
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

/**
 * The caller's environment without the kit's own variables (the server's, the suite's,
 * Playwright's) or npm's per-script ones, so that the caller's shell cannot change a test.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const ours = /^(CONFORMANCE_|REFERENCE_|PLAYWRIGHT_)/.test(name);
    const npmScript = /^npm_(package|lifecycle)_/.test(name);
    if (!ours && !npmScript) env[name] = value;
  }
  return { ...env, ...extra };
}

/**
 * Which script runs (the reference server's command unless said), in which directory, and how
 * long runCli lets it run (CLI_TIMEOUT_MS unless said).
 */
export interface CliPlace {
  script?: string;
  cwd?: string;
  timeoutMs?: number;
}

export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv = cleanEnv(),
  { script = CLI_PATH, cwd = REPO_ROOT, timeoutMs = CLI_TIMEOUT_MS }: CliPlace = {},
): CliProcess {
  const child = spawn(process.execPath, [...nodeArguments(script), ...args], {
    cwd,
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
  const killTimer = setTimeout(() => child.kill('SIGKILL'), Math.max(timeoutMs, CLI_TIMEOUT_MS) * 2);
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
export async function runCli(args: string[], env?: NodeJS.ProcessEnv, place?: CliPlace): Promise<CliExit> {
  const cli = startCli(args, env, place);
  const timer = setTimeout(() => cli.kill(), place?.timeoutMs ?? CLI_TIMEOUT_MS);
  try {
    return await cli.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `tenant-auth-conformance` (compiled) to its end, in the repository unless said. */
export function runMain(
  args: string[],
  env: NodeJS.ProcessEnv = cleanEnv(),
  place: Omit<CliPlace, 'script'> = {},
): Promise<CliExit> {
  return runCli(args, env, { ...place, script: MAIN_PATH });
}

/** Starts `tenant-auth-conformance` (compiled), for a command that runs until stopped. */
export function startMain(args: string[], env: NodeJS.ProcessEnv = cleanEnv()): CliProcess {
  return startCli(args, env, { script: MAIN_PATH });
}

/** A stack trace line, which no expected failure may print. */
export const STACK_TRACE = /^\s+at .+(:\d+:\d+\)?|\(node:.+\))$/m;
