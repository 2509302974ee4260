// Runs a fuzz property against a reference server over real TLS: each generated request is
// written as raw bytes on a keep-alive connection, and its answer is checked against the
// invariants. The seed is random per run and printed on failure; FUZZ_SEED (and FUZZ_PATH, from
// the failure report) replay a run, FUZZ_RUNS changes the number of cases.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../support/reference-client.ts';
import { DOMAIN, FixtureKnowledge, describeRequest, type FuzzRequest } from './fuzz-model.ts';
import { ConnectionPool } from './raw-tls-connection.ts';
import { exchangeOverHttp1 } from './fuzz-exchange.ts';

/** One exchange that takes longer than this is a hang. */
const EXCHANGE_TIMEOUT_MS = 5_000;
/** Cases stop being generated after this long, so that a slow machine still ends the run. */
const PROPERTY_TIME_LIMIT_MS = 45_000;

export interface FuzzTarget {
  server: TestServer;
  pool: ConnectionPool;
  knowledge: FixtureKnowledge;
  close(): Promise<void>;
}

/**
 * A fuzz target for the tests of one file: started before them, closed after them.
 * @returns a function giving the running target, to call inside a test.
 */
export function useFuzzTarget(): () => FuzzTarget {
  let target: FuzzTarget | undefined;
  before(async () => {
    target = await startFuzzTarget();
  });
  after(async () => {
    await target?.close();
  });
  return () => {
    if (!target) throw new Error('The reference server of this test file did not start.');
    return target;
  };
}

/** A test that runs one fuzz property against this file's server and reports what it sent. */
export function fuzzTest(
  name: string,
  defaultRuns: number,
  requests: (target: FuzzTarget) => fc.Arbitrary<FuzzRequest>,
): void {
  const target = useFuzzTarget();
  test(name, async (t) => {
    t.diagnostic(describeRun(await checkFuzzProperty(target(), requests(target()), defaultRuns)));
  });
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const server = await startTestServer();
  const pool = new ConnectionPool({
    port: server.server.httpsPort,
    ca: server.ca,
    // The certificate is checked against a name it covers, whatever SNI a case sends.
    verifyHostname: `acme.api.${DOMAIN}`,
  });
  return {
    server,
    pool,
    knowledge: new FixtureKnowledge(server.fixtures),
    close: async () => {
      pool.closeAll();
      await server.close();
    },
  };
}

/** The problems of the answer to one request; empty when it is as it must be. */
export async function exchangeAndCheck(target: FuzzTarget, request: FuzzRequest): Promise<string[]> {
  return (await exchangeOverHttp1(target.pool, target.knowledge, request, EXCHANGE_TIMEOUT_MS)).problems;
}

export async function checkFuzzProperty(
  target: FuzzTarget,
  requests: fc.Arbitrary<FuzzRequest>,
  defaultRuns: number,
): Promise<{ runs: number; interrupted: boolean; expected: Record<string, number> }> {
  const expected: Record<string, number> = {};
  const property = fc.asyncProperty(requests, async (request) => {
    const label =
      request.expect.kind === 'rejected'
        ? (request.expect.codes?.join('|') ?? 'any rejection')
        : request.expect.kind;
    expected[label] = (expected[label] ?? 0) + 1;
    const problems = await exchangeAndCheck(target, request);
    if (problems.length > 0) {
      throw new Error(`${problems.join('\n')}\nrequest: ${describeRequest(request, target.knowledge)}`);
    }
  });
  const details = await runProperty(property, {
    runs: positiveInteger('FUZZ_RUNS') ?? defaultRuns,
    shrink: true,
  });
  // The access log must not hold a key either, whatever the requests carried.
  const logged = target.server.accessLog.join('');
  for (const key of target.knowledge.keys.values()) {
    assert.ok(!logged.includes(key.secret), `the access log contains key ${key.id}`);
  }
  return { runs: details.numRuns, interrupted: details.interrupted, expected };
}

/**
 * Runs a property with the replay settings of the environment and the time limit, and fails with
 * fast-check's report (seed, path, counterexample), what was wrong, and the command that replays it.
 * @param shrink false for properties whose cases are large and slow, where shrinking would take
 *   minutes: the first failing case is reported as found.
 */
export async function runProperty<T>(
  property: fc.IAsyncProperty<T>,
  options: { runs: number; shrink: boolean },
): Promise<fc.RunDetails<T>> {
  const details = await fc.check<T>(property, {
    ...replayParameters(),
    numRuns: options.runs,
    endOnFailure: !options.shrink,
    plugins: [fc.interruptAfterTimeLimit(PROPERTY_TIME_LIMIT_MS) as fc.Plugin<T>],
  });
  if (details.failed) {
    const report = fc.defaultReportMessage(details) ?? 'The property failed.';
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    assert.fail(
      `${report}\nWhat was wrong:\n${cause}\n` +
        `Replay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''} npm run test:unit`,
    );
  }
  return details;
}

function replayParameters(): { seed?: number; path?: string } {
  const seed = process.env.FUZZ_SEED;
  const path = process.env.FUZZ_PATH;
  return {
    ...(seed ? { seed: Number(seed) } : {}),
    ...(seed && path ? { path } : {}),
  };
}

function positiveInteger(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new Error(`${name} must be a positive integer, got ${JSON.stringify(value)}.`);
  }
  return number;
}

/** A line for the test's diagnostics: how many cases, and what the oracle expected of them. */
export function describeRun(result: {
  runs: number;
  interrupted: boolean;
  expected: Record<string, number>;
}): string {
  const tally = Object.entries(result.expected)
    .sort(([, a], [, b]) => b - a)
    .map(([label, count]) => `${label} ${count}`)
    .join(', ');
  return `${result.runs} cases${result.interrupted ? ' (stopped by the time limit)' : ''}: ${tally}`;
}
