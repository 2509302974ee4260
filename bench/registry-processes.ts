// The processes of `npm run bench:registry-reads`: the registry (`registry serve`, as an operator
// starts it) and the page-loading crowd, each in a process of its own, so that the measuring client
// (the bench's own process) measures the registry and not a crowd's TLS on its event loop. Every
// wait on a child is bounded; a child that fails says why.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { CrowdConfig, CrowdReply } from './registry-crowd-process.ts';

const ROOT = join(import.meta.dirname, '..');
/** A registry starts (migrations, TLS) well within this; a crowd stops within it. */
const WAIT_MS = 120_000;

/**
 * BENCH_CPU_PROF_DIR=DIR writes a V8 CPU profile of each registry process into DIR (open it in
 * Chrome's DevTools), to see what holds its event loop under the crowd.
 */
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF_DIR;

async function bounded<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what}: no answer within ${WAIT_MS / 1000} s.`)),
          WAIT_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface RegistryProcess {
  url: string;
  /** The gate port's URL, when started with --gate-port. */
  gateUrl?: string;
  /** Stops the registry as an operator would (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/** `registry serve` on `data` (and a server's database when `databaseUrl`), on a free port. */
export async function startRegistryProcess(options: {
  data: string;
  certDir: string;
  databaseUrl?: string;
  extra?: string[];
}): Promise<RegistryProcess> {
  const profile = CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [];
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      ...profile,
      join(ROOT, 'cli', 'main.ts'),
      'registry',
      'serve',
      '--data',
      options.data,
      '--cert-dir',
      options.certDir,
      '--port',
      '0',
      ...(options.databaseUrl !== undefined ? ['--database-url', options.databaseUrl] : []),
      ...(options.extra ?? []),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-2000);
  });
  const withGate = options.extra?.includes('--gate-port') === true;
  const [url, gateUrl] = await bounded(
    'registry serve',
    new Promise<[string, string | undefined]>((resolve, reject) => {
      let seen = '';
      const onData = (chunk: Buffer): void => {
        seen += chunk.toString();
        const match = /Registry at (https:\/\/\S+)/.exec(seen);
        const gate = /gate: +(https:\/\/\S+)/.exec(seen);
        if (match?.[1] && (!withGate || gate?.[1])) {
          // The request log goes on: read and dropped, so the registry never blocks on its pipe.
          child.stdout.off('data', onData);
          child.stdout.resume();
          resolve([match[1], gate?.[1]]);
        }
      };
      child.stdout.on('data', onData);
      child.once('exit', (code) =>
        reject(new Error(`registry serve exited (code ${String(code)}) before listening: ${errors}`)),
      );
    }),
  ).catch((error: unknown) => {
    child.kill();
    throw error;
  });
  return {
    url,
    ...(gateUrl !== undefined ? { gateUrl } : {}),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await bounded('registry stop', exited);
    },
  };
}

function forkCrowd(config: CrowdConfig): ChildProcess {
  return fork(join(import.meta.dirname, 'registry-crowd-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_CROWD_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The child's next message of `type`, however long it takes (the caller bounds the wait). */
function nextMessage(child: ChildProcess, type: CrowdReply['type']): Promise<CrowdReply> {
  return new Promise<CrowdReply>((resolve, reject) => {
    const onMessage = (message: CrowdReply): void => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`a crowd process exited (code ${String(code)})`)));
  });
}

export interface Crowd {
  /** Stops every loader; the pages they loaded and the answers that were not 200. */
  stop(): Promise<{ pages: number; failures: number }>;
}

/** `processes` crowd processes of `clients` loops each, loading pages until stopped. */
export async function startCrowd(
  config: Omit<CrowdConfig, 'clients'>,
  processes: number,
  clients: number,
): Promise<Crowd> {
  const children = Array.from({ length: processes }, () => forkCrowd({ ...config, clients }));
  const done = children.map((child) => nextMessage(child, 'done'));
  // A stop sent before a child's end is awaited below; an early end is a bound reached.
  for (const promise of done) promise.catch(() => undefined);
  await bounded('crowd start', Promise.all(children.map((child) => nextMessage(child, 'ready'))));
  return {
    async stop() {
      for (const child of children) if (child.connected) child.send({ type: 'stop' });
      const replies = await bounded('crowd stop', Promise.all(done));
      let pages = 0;
      let failures = 0;
      for (const reply of replies)
        if (reply.type === 'done') {
          pages += reply.pages;
          failures += reply.failures;
        }
      return { pages, failures };
    },
  };
}
