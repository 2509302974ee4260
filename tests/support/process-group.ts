// A command run in its own process group, so that a time-out or a stop ends everything it started
// (`npx` and the kit it runs, which writes its data directory while it stops), not only the
// process in front: for tests whose commands start commands of their own.
import { spawn, type ChildProcess } from 'node:child_process';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end in its own process group, killed as a whole after `timeoutMs`. */
export function runInGroup(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Finished> {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => killGroup(child), timeoutMs);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    }),
  );
}

/**
 * Signals the child's process group and waits until no process of the group is left: the child
 * (`npx`) and what it started (the served kit, which writes its data directory while it stops)
 * alike. SIGKILL after 10 s; gives up waiting after 20 s.
 */
export async function stopped(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const group = -child.pid;
  killGroup(child);
  const started = Date.now();
  let killed = false;
  while (groupAlive(group) && Date.now() - started < 20_000) {
    if (!killed && Date.now() - started >= 10_000) {
      killed = true;
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether any process of the group is left (signal 0 only checks). */
function groupAlive(group: number): boolean {
  try {
    process.kill(group, 0);
    return true;
  } catch {
    return false;
  }
}

export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}
