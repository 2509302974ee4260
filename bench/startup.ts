// Start-up time of the reference server as a person starts it (`npm start` runs the same
// reference-server/cli.ts): from spawning the process to the first answered request, with a
// certificate directory that is empty (CA and leaf generated) or already holds them (reused).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const START_TIMEOUT_MS = 60_000;
const LISTENING = /Listening: https port (\d+)/;

export interface StartupRequest {
  certDir: string;
  /** Host name of the tenant asked, e.g. `acme.api.localhost`. */
  hostname: string;
  authorization: string;
}

/** Milliseconds from spawn to the first 200 answer; the process is stopped afterwards. */
export async function timeToFirstAnswer(options: StartupRequest): Promise<number> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'reference-server', 'cli.ts'), '--port', '0', '--http-port', 'off'],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        REFERENCE_CERT_DIR: options.certDir,
        REFERENCE_DATA_DIR: 'off',
        REFERENCE_ACCESS_LOG: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    const port = await listeningPort(child.stdout, child);
    const status = await get(port, options);
    if (status !== 200) throw new Error(`the first request was answered ${status}, expected 200`);
    return performance.now() - started;
  } finally {
    child.kill('SIGTERM');
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
