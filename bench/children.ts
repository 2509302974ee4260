// Child processes of the benchmark, started with tsx and spoken to over IPC: the server under
// load and the load generators. Every wait on a child is bounded, and a child that fails
// says why.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type {
  HandshakeRequest,
  HandshakeResult,
  Http2LoadRequest,
  LoadRequest,
  LoadResult,
  ServerConfig,
  ServerMessage,
  ServerReply,
  FixedResponse,
} from './protocol.ts';

const BENCH_DIR = import.meta.dirname;
/** No single answer of a child takes longer than this; a run is at most tens of seconds. */
const REPLY_TIMEOUT_MS = 120_000;

/**
 * BENCH_CPU_PROF_DIR=DIR writes a V8 CPU profile of every server process into DIR (open it in
 * Chrome's DevTools), to find where the reference spends its time per request.
 */
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF_DIR;

function start(module: string, env: Record<string, string> = {}): ChildProcess {
  const profile =
    CPU_PROFILE_DIR && module === 'server-process.ts'
      ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`]
      : [];
  return fork(join(BENCH_DIR, module), [], {
    // --expose-gc lets the server collect garbage before it reports its memory.
    execArgv: ['--import', 'tsx', '--expose-gc', ...profile],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** Waits for the next message of `child` that is not a progress note, or fails. */
async function nextReply<T>(child: ChildProcess, what: string): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), REPLY_TIMEOUT_MS);
  try {
    const [message] = (await Promise.race([
      once(child, 'message', { signal: controller.signal }),
      once(child, 'exit', { signal: controller.signal }).then(([code]) => {
        throw new Error(`${what}: the process exited (code ${String(code)}) before answering.`);
      }),
    ])) as [T & { type?: string; message?: string }];
    if (message.type === 'failed') throw new Error(`${what}: ${message.message ?? 'failed'}`);
    return message;
  } catch (error) {
    if (controller.signal.aborted) {
      throw new Error(`${what}: no answer within ${REPLY_TIMEOUT_MS / 1000} s.`, { cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

export class ServerChild {
  readonly #child: ChildProcess;
  readonly ready: Extract<ServerReply, { type: 'ready' }>;

  private constructor(child: ChildProcess, ready: Extract<ServerReply, { type: 'ready' }>) {
    this.#child = child;
    this.ready = ready;
  }

  static async start(config: ServerConfig, what: string): Promise<ServerChild> {
    const child = start('server-process.ts', { BENCH_SERVER_CONFIG: JSON.stringify(config) });
    try {
      return new ServerChild(child, await nextReply(child, what));
    } catch (error) {
      child.kill();
      throw error;
    }
  }

  get port(): number {
    return this.ready.port;
  }

  async usage(): Promise<Extract<ServerReply, { type: 'usage' }>> {
    this.#send({ type: 'usage' });
    return nextReply(this.#child, 'server usage');
  }

  async respond(response: FixedResponse): Promise<void> {
    this.#send({ type: 'respond', response });
    await nextReply(this.#child, 'bare server');
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    this.#send({ type: 'stop' });
    const exited = once(this.#child, 'exit');
    const timer = setTimeout(() => this.#child.kill(), 10_000);
    await exited;
    clearTimeout(timer);
  }

  #send(message: ServerMessage): void {
    this.#child.send(message);
  }
}

/** A load generator process (autocannon, the HTTP/2 load, or the TLS connection loop), reused across runs. */
export class LoadChild<Request, Result> {
  readonly #child: ChildProcess;
  readonly #what: string;

  constructor(module: 'load-process.ts' | 'http2-load-process.ts' | 'handshake-process.ts', what: string) {
    this.#child = start(module);
    this.#what = what;
  }

  async run(request: Request): Promise<Result> {
    this.#child.send(request as object);
    const reply = await nextReply<{ result: Result }>(this.#child, this.#what);
    return reply.result;
  }

  stop(): void {
    this.#child.kill();
  }
}

export type Autocannon = LoadChild<LoadRequest, LoadResult>;
export type Http2Load = LoadChild<Http2LoadRequest, LoadResult>;
export type HandshakeLoop = LoadChild<HandshakeRequest, HandshakeResult>;
