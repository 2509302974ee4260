// The reference server in a process of its own (bench/server-process.ts), for the tests and the
// soak that judge its memory: the resident set read there is the server's alone, not the attack's
// or the checker's. The server's code is the compiled one, as the package ships it (its memory is
// what a user's server holds, without tsx's). Also the probe of a well-behaved client, over
// HTTP/2 and over HTTP/1.1.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ServerChild } from '../../bench/children.ts';
import { assertDistCurrent } from '../support/compiled-kit.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../reference-server/store/fixtures.ts';
import { DEFAULT_LIMITS, type ServerLimits } from '../../reference-server/server.ts';
import { FixtureKnowledge, hostOf, requestBytes, type FuzzRequest } from './fuzz-model.ts';
import { problemsWith } from './response-invariants.ts';
import { RawTlsConnection } from './raw-tls-connection.ts';
import { H2Session } from './h2-session.ts';
import { h2Problems, overHttp2 } from './h2-model.ts';
import { scratchDirectory } from '../support/scratch.ts';

/** A probe that gets no answer within this long has hung. */
const PROBE_TIMEOUT_MS = 20_000;

export interface ChildServer {
  port: number;
  /** PEM of the server's CA. */
  ca: string;
  knowledge: FixtureKnowledge;
  limits: Partial<ServerLimits>;
  /** The server's resident set and V8 heap in use, in bytes, after a garbage collection. */
  memory(): Promise<{ rss: number; heapUsed: number }>;
  stop(): Promise<void>;
}

export async function startChildServer(limits: Partial<ServerLimits> = {}): Promise<ChildServer> {
  assertDistCurrent();
  const certDir = scratchDirectory('hostile-certs-');
  const child = await ServerChild.start(
    { kind: 'reference', certDir, build: 'compiled', limits },
    'reference server (child process)',
  );
  return {
    port: child.port,
    ca: readFileSync(join(certDir, 'ca.crt'), 'utf8'),
    knowledge: new FixtureKnowledge(loadFixtures(DEFAULT_FIXTURES_FILE)),
    limits,
    memory: async () => {
      const { rss, heapUsed } = await child.usage();
      return { rss, heapUsed };
    },
    stop: async () => {
      await child.stop();
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}

/** A request of a well-behaved client: a key of acme's production that reads its customers. */
export function validRequest(knowledge: FixtureKnowledge): FuzzRequest {
  const keyId = knowledge.keyIds.find((id) => {
    const key = knowledge.key(id);
    return knowledge.bearerOutcome(id, key.tenant, key.environment).kind === 'data';
  });
  if (keyId === undefined) throw new Error('The fixtures have no key that reads customers.');
  const { tenant, environment } = knowledge.key(keyId);
  const host = hostOf(tenant, environment);
  return {
    servername: host,
    method: ['GET'],
    target: ['/v1/customers'],
    version: ['HTTP/1.1'],
    headers: [
      [['Host'], [host]],
      [['Authorization'], ['Bearer ', { key: keyId }]],
    ],
    expect: { kind: 'data', tenant, environment },
  };
}

/**
 * One request of a well-behaved client over HTTP/2 and one over HTTP/1.1, each on a new
 * connection: the problems of their answers (none when both got their 200 with the right data).
 */
export async function probe(server: ChildServer): Promise<string[]> {
  const request = validRequest(server.knowledge);
  const [overH2, overH1] = await Promise.all([probeHttp2(server, request), probeHttp1(server, request)]);
  return [
    ...overH2.map((problem) => `HTTP/2: ${problem}`),
    ...overH1.map((problem) => `HTTP/1.1: ${problem}`),
  ];
}

async function probeHttp2(server: ChildServer, request: FuzzRequest): Promise<string[]> {
  const h2 = overHttp2(request, server.knowledge, DEFAULT_LIMITS);
  if (!h2) throw new Error('The probe request has no HTTP/2 form.');
  let session: H2Session | undefined;
  try {
    session = await H2Session.open({
      port: server.port,
      ca: server.ca,
      servername: h2.servername,
      handWritten: false,
    });
    return h2Problems(await session.request(h2.fields, PROBE_TIMEOUT_MS), h2, server.knowledge);
  } catch (error) {
    return [`no connection: ${error instanceof Error ? error.message : String(error)}`];
  } finally {
    session?.close();
  }
}

async function probeHttp1(server: ChildServer, request: FuzzRequest): Promise<string[]> {
  let connection: RawTlsConnection | undefined;
  try {
    connection = await RawTlsConnection.open({
      port: server.port,
      ca: server.ca,
      servername: request.servername,
    });
    const outcome = await connection.exchange(
      requestBytes(request, server.knowledge),
      false,
      PROBE_TIMEOUT_MS,
    );
    return problemsWith(outcome, request.expect, server.knowledge, false);
  } catch (error) {
    return [`no connection: ${error instanceof Error ? error.message : String(error)}`];
  } finally {
    connection?.close();
  }
}

/**
 * Runs `attack`, and probes the server with a well-behaved client while it runs (at least once,
 * one probe after another) and once more after it: the attack's result and every probe's problems.
 */
export async function probedDuring<T>(
  server: ChildServer,
  attack: () => Promise<T>,
): Promise<{ result: T; probes: number; problems: string[] }> {
  let done = false;
  const running = attack().finally(() => {
    done = true;
  });
  // Awaited below, after the probes: a failure of the attack is reported then.
  running.catch(() => {});
  const problems: string[] = [];
  let probes = 0;
  do {
    problems.push(...(await probe(server)));
    probes += 1;
  } while (!done);
  const result = await running;
  problems.push(...(await probe(server)));
  return { result, probes: probes + 1, problems };
}
