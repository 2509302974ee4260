// The server under load, in a process of its own so that its CPU time and memory are its own:
// either the reference server (on the shipped fixtures or a generated set) or a bare baseline
// (node:https, or node:http2 for the HTTP/2 rows).
// Started by bench/run.ts through IPC; it answers 'usage' with its CPU time and memory and
// 'stop' by closing.
import { createServer, type Server } from 'node:https';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/store/fixtures.ts';
import { ensureCertificates } from '../reference-server/listeners/certificates.ts';
import { listenOnLoopback } from '../tests/independent-implementation/loopback-listener.ts';
import { DEFAULT_LIMITS } from '../reference-server/listeners/listener-limits.ts';
import { generateFixtures, type ScaleSpec } from './generate-fixtures.ts';
import type { FixedResponse, ServerConfig, ServerMessage, ServerReply } from './protocol.ts';

const LOOPBACK = '127.0.0.1';
/** The compiled server, as `npm run build` writes it from the working tree (see `compileForBench`). */
const COMPILED_SERVER = join(import.meta.dirname, '..', 'dist', 'reference-server', 'server.js');
const DOMAIN = 'localhost';

async function main(): Promise<void> {
  const config = JSON.parse(process.env.BENCH_SERVER_CONFIG ?? '{}') as ServerConfig;
  const started = performance.now();
  const running =
    config.kind === 'bare'
      ? await startBare(config.certDir, config.http2 ?? false)
      : await startReference(config);
  reply({ type: 'ready', port: running.port, startMs: performance.now() - started, ...running.extra });

  process.on('message', (message: ServerMessage) => {
    if (message.type === 'usage') {
      // A collection first, so that the heap reported is what the data holds, not garbage.
      globalThis.gc?.();
      const memory = process.memoryUsage();
      const cpu = process.cpuUsage();
      reply({ type: 'usage', rss: memory.rss, heapUsed: memory.heapUsed, cpuMicros: cpu.user + cpu.system });
    } else if (message.type === 'respond') {
      running.respond?.(message.response);
      reply({ type: 'responding' });
    } else {
      void running.close().then(() => process.exit(0));
    }
  });
}

interface Running {
  port: number;
  extra: Record<string, unknown>;
  respond?: (response: FixedResponse) => void;
  close(): Promise<void>;
}

async function startReference(config: Extract<ServerConfig, { kind: 'reference' }>): Promise<Running> {
  const generationStarted = performance.now();
  const fixtures = config.scale
    ? generateFixtures(config.scale satisfies ScaleSpec).fixtures
    : loadFixtures(DEFAULT_FIXTURES_FILE);
  const fixturesMs = performance.now() - generationStarted;
  // Loaded only as asked: a process started with `--import tsx` runs compiled JavaScript as is.
  const { startReferenceServer } = (
    config.build === 'compiled'
      ? await import(pathToFileURL(COMPILED_SERVER).href)
      : await import('../reference-server/server.ts')
  ) as typeof import('../reference-server/server.ts');
  const serverStarted = performance.now();
  const server = await startReferenceServer({
    host: LOOPBACK,
    httpsPort: 0,
    httpPort: null,
    domain: DOMAIN,
    fixtures,
    certDir: config.certDir,
    ...(config.limits ? { limits: { ...DEFAULT_LIMITS, ...config.limits } } : {}),
  });
  return {
    port: server.httpsPort,
    extra: { fixturesMs, serverStartMs: performance.now() - serverStarted },
    close: () => server.close(),
  };
}

/**
 * The baseline: node:https — or, for the HTTP/2 rows, node:http2's secure server — with the
 * reference's own certificate, writing the bytes the reference answers the scenario with (set by
 * 'respond': status line, header fields, body) through `writeHead` and `end`, as the reference
 * does, and doing nothing else. HTTP/2 has no reason phrase; its fields go as an object, as the
 * reference writes them (no name of its answers repeats).
 */
async function startBare(certDir: string, http2: boolean): Promise<Running> {
  const certificates = await ensureCertificates(certDir, DOMAIN);
  const tls = { key: certificates.key, cert: certificates.cert, minVersion: 'TLSv1.2' as const };
  let fixed: FixedResponse = { status: 200, statusMessage: 'OK', headers: [], body: '{}' };
  let lines = fixed.headers.flat();
  let fields = Object.fromEntries(fixed.headers);
  const server: Server | Http2SecureServer = http2
    ? createSecureServer(tls, (_req, res) => {
        res.writeHead(fixed.status, fields);
        res.end(fixed.body);
      })
    : createServer(tls, (_req, res) => {
        res.writeHead(fixed.status, fixed.statusMessage, lines);
        res.end(fixed.body);
      });
  const { port, close } = await listenOnLoopback(server);
  return {
    port,
    extra: {},
    respond: (response) => {
      fixed = response;
      lines = response.headers.flat();
      fields = Object.fromEntries(response.headers);
    },
    close,
  };
}

function reply(message: ServerReply): void {
  process.send?.(message);
}

main().catch((error: unknown) => {
  reply({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
