// Start-up of the reference server as a person starts it, run two ways: through tsx from the
// repository's TypeScript (`npm start` in a clone) and compiled (`tenant-auth-conformance serve`
// of the installed package, dist/cli/main.js). Each start is timed from spawning the process to
// the first answered request, with a certificate directory that is empty (CA and leaf generated)
// or already holds them (reused); then, after a second at rest, its resident memory is read.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { StartupRow } from './startup-section.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const START_TIMEOUT_MS = 60_000;
/** How long a started server idles before its memory is read: "at rest". */
const REST_MS = 1_000;
const LISTENING = /Listening: https port (\d+)/;
const SERVER_OPTIONS = ['--port', '0', '--http-port', 'off'];

/** How each variant is started, as a person starts it (without npm or npx in front). */
const COMMANDS = {
  tsx: {
    label: 'tsx (`npm start`)',
    args: ['--import', 'tsx', join(REPO_ROOT, 'reference-server', 'cli', 'cli.ts'), ...SERVER_OPTIONS],
  },
  compiled: {
    label: 'compiled (`tenant-auth-conformance serve`)',
    args: [join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'serve', ...SERVER_OPTIONS],
  },
} as const;
export type ServerVariant = keyof typeof COMMANDS;

export interface StartupRequest {
  variant: ServerVariant;
  certDir: string;
  /** Host name of the tenant asked, e.g. `acme.api.localhost`. */
  hostname: string;
  authorization: string;
}

export interface StartupMeasurement {
  /** Spawn to the first 200 answer. */
  ms: number;
  /** The process's user + system CPU time up to that answer (Linux; undefined elsewhere). */
  cpuMs: number | undefined;
  /** Resident memory after REST_MS at rest (Linux; undefined elsewhere). */
  rssBytes: number | undefined;
}

/** Compiles dist/ from the working tree, so that the compiled rows measure this very code. */
export function compileForBench(): void {
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm run build failed (status ${String(result.status)})`);
}

/** Every variant with a new and a reused certificate, `runs` starts each. */
export async function measureStartup(
  authorization: string,
  hostname: string,
  runs: number,
): Promise<StartupRow[]> {
  compileForBench();
  const rows: StartupRow[] = [];
  for (const variant of Object.keys(COMMANDS) as ServerVariant[]) {
    const generated: StartupMeasurement[] = [];
    for (let run = 0; run < runs; run += 1) {
      const freshDir = mkdtempSync(join(tmpdir(), 'bench-startup-fresh-'));
      try {
        generated.push(await timeToFirstAnswer({ variant, certDir: freshDir, hostname, authorization }));
      } finally {
        rmSync(freshDir, { recursive: true, force: true });
      }
    }
    rows.push(startupRow(variant, 'generated (empty certificate directory)', generated));
    const cachedDir = mkdtempSync(join(tmpdir(), 'bench-startup-cached-'));
    try {
      // One start to fill the directory, then the measured starts that reuse its certificate.
      await timeToFirstAnswer({ variant, certDir: cachedDir, hostname, authorization });
      const cached: StartupMeasurement[] = [];
      for (let run = 0; run < runs; run += 1)
        cached.push(await timeToFirstAnswer({ variant, certDir: cachedDir, hostname, authorization }));
      rows.push(startupRow(variant, 'cached (CA and leaf reused)', cached));
    } finally {
      rmSync(cachedDir, { recursive: true, force: true });
    }
  }
  return rows;
}

function startupRow(variant: ServerVariant, certificate: string, runs: StartupMeasurement[]): StartupRow {
  return {
    server: COMMANDS[variant].label,
    compiled: variant === 'compiled',
    certificate,
    runsMs: runs.map((run) => run.ms),
    cpuMs: runs.flatMap((run) => (run.cpuMs === undefined ? [] : [run.cpuMs])),
    rssBytes: runs.flatMap((run) => (run.rssBytes === undefined ? [] : [run.rssBytes])),
    load: loadavg()[0] ?? 0,
  };
}

/** One start: spawn, wait for the first 200 answer, rest, read memory, stop. */
export async function timeToFirstAnswer(options: StartupRequest): Promise<StartupMeasurement> {
  const started = performance.now();
  const child = spawn(process.execPath, COMMANDS[options.variant].args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      REFERENCE_CERT_DIR: options.certDir,
      REFERENCE_DATA_DIR: 'off',
      REFERENCE_ACCESS_LOG: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const port = await listeningPort(child.stdout, child);
    const status = await get(port, options);
    if (status !== 200) throw new Error(`the first request was answered ${status}, expected 200`);
    const ms = performance.now() - started;
    const cpuMs = child.pid === undefined ? undefined : processCpuMs(child.pid);
    await new Promise((resolveRest) => setTimeout(resolveRest, REST_MS));
    const rssBytes = child.pid === undefined ? undefined : residentBytes(child.pid);
    return { ms, cpuMs, rssBytes };
  } finally {
    child.kill('SIGTERM');
  }
}

/** VmRSS of /proc/PID/status. */
function residentBytes(pid: number): number | undefined {
  try {
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** utime + stime of /proc/PID/stat, in clock ticks of 10 ms (USER_HZ is 100 on Linux). */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

function listeningPort(
  stdout: NodeJS.ReadableStream,
  child: { once(event: 'exit', listener: (code: number | null) => void): unknown },
): Promise<number> {
  return new Promise((resolvePort, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new Error(`no "Listening" line within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const port = LISTENING.exec(text)?.[1];
      if (port) {
        clearTimeout(timer);
        resolvePort(Number(port));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (code ${String(code)}) before listening`));
    });
  });
}

function get(port: number, options: StartupRequest): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/customers',
        servername: options.hostname,
        headers: { Host: `${options.hostname}:${port}`, Authorization: options.authorization },
        ca: readFileSync(join(options.certDir, 'ca.crt')),
        agent: false,
        timeout: START_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolveStatus(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
    req.end();
  });
}
