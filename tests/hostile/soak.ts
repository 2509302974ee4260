// The soak: the fuzz properties of tests/hostile (Authorization, SNI against Host, the request
// line) driven for as many requests as asked, over HTTP/1.1 and HTTP/2 at once, every answer
// checked against the model. Each generated case goes over HTTP/1.1 as raw bytes on keep-alive
// connections, and over HTTP/2 (h2-model.ts) on sessions carrying many streams at once: through
// node's client when it can send the request, through the frame writer when it cannot (and for
// every fourth case it could, so that both paths are judged on the same kinds of request). Used by
// `npm run soak` (bench/soak.ts) and, in a small slice, by soak.test.ts.
import fc from 'fast-check';
import { DEFAULT_LIMITS } from '../../reference-server/server.ts';
import {
  DOMAIN,
  describeRequest,
  type Expectation,
  type FixtureKnowledge,
  type FuzzRequest,
} from './fuzz-model.ts';
import { ConnectionPool, type RawOutcome } from './raw-tls-connection.ts';
import { exchangeOverHttp1 } from './fuzz-exchange.ts';
import { describeH2Request, h2Problems, overHttp2, type H2Request } from './h2-model.ts';
import { H2SessionPool } from './h2-session-pool.ts';
import type { H2Outcome } from './h2-session.ts';
import { authorizationRequests } from './authorization-requests.ts';
import { hostRequests } from './host-requests.ts';
import { requestLineRequests } from './request-line-requests.ts';

/** One exchange that takes longer than this is a hang. */
const EXCHANGE_TIMEOUT_MS = 15_000;
/** Cases generated at a time; the warm-up and the end are read between two batches. */
const BATCH = 2_000;
/** Disagreements kept, described, for the report. */
const EXAMPLES_KEPT = 10;

export interface SoakOptions {
  port: number;
  /** PEM of the server's CA. */
  ca: string;
  knowledge: FixtureKnowledge;
  /** Requests to send, both protocols together. */
  requests: number;
  /** No batch starts after this long. */
  timeLimitMs: number;
  seed: number;
  /** HTTP/1.1 connections in use at once (one request at a time each). */
  http1Connections: number;
  /** HTTP/2 streams open at once, over all sessions. */
  http2Streams: number;
  /** After this many requests `warmedUp` is called, between two batches (nothing in flight). */
  warmUpRequests?: number;
  warmedUp?: (result: SoakResult) => Promise<void>;
  /** Called between two batches (nothing in flight). */
  progress?: (result: SoakResult) => Promise<void> | void;
}

export interface ProtocolTally {
  requests: number;
  /** Answers the model does not allow (response-invariants.ts, h2-model.ts). */
  disagreements: number;
  /** Answers carrying customers of another tenant or environment than the request may get. */
  wrongTenantData: number;
  serverErrors: number;
  /** Answers by status (`200`), by reset code (`reset 11`), or `failed`. */
  answers: Record<string, number>;
  /** Requests sent with the frame writer (HTTP/2). */
  handWritten: number;
}

export interface SoakResult {
  seed: number;
  http1: ProtocolTally;
  http2: ProtocolTally;
  /** Cases sent over HTTP/1.1 alone: their HTTP version is not 1.1, which HTTP/2 has no form for. */
  http1Only: number;
  http2Sessions: number;
  elapsedMs: number;
  stoppedBy: 'count' | 'time';
  /** The first disagreements, with their requests (keys shown by id). */
  examples: string[];
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { knowledge } = options;
  const started = Date.now();
  const result: SoakResult = {
    seed: options.seed,
    http1: emptyTally(),
    http2: emptyTally(),
    http1Only: 0,
    http2Sessions: 0,
    elapsedMs: 0,
    stoppedBy: 'count',
    examples: [],
  };
  const owners = customerOwners(knowledge);
  const connection = { port: options.port, ca: options.ca, verifyHostname: `acme.api.${DOMAIN}` };
  const http1Pools = Array.from({ length: options.http1Connections }, () => new ConnectionPool(connection));
  const sessions = new H2SessionPool(connection);
  const cases = soakRequests(knowledge, options.port);
  const sent = (): number => result.http1.requests + result.http2.requests;
  const outOfTime = (): boolean => Date.now() - started >= options.timeLimitMs;
  const done = (): boolean => sent() >= options.requests || outOfTime();
  let warm = options.warmedUp === undefined;

  const record = (
    tally: ProtocolTally,
    problems: string[],
    answer: string,
    data: { body: Buffer; expect: Expectation } | undefined,
    describe: () => string,
  ): void => {
    tally.requests += 1;
    tally.answers[answer] = (tally.answers[answer] ?? 0) + 1;
    if (Number(answer) >= 500) tally.serverErrors += 1;
    if (data && carriesForeignData(data.body, data.expect, owners)) tally.wrongTenantData += 1;
    if (problems.length === 0) return;
    tally.disagreements += 1;
    if (result.examples.length < EXAMPLES_KEPT) result.examples.push(`${problems.join('\n')}\n${describe()}`);
  };

  const overHttp1 = async (pool: ConnectionPool, request: FuzzRequest): Promise<void> => {
    const { outcome, problems } = await exchangeOverHttp1(
      pool,
      knowledge,
      request,
      EXCHANGE_TIMEOUT_MS,
    ).catch((error: unknown) => ({ outcome: undefined, problems: [`no connection: ${String(error)}`] }));
    record(
      result.http1,
      problems,
      answerOf1(outcome),
      dataOf1(outcome, request.expect),
      () => `HTTP/1.1, ${describeRequest(request, knowledge)}`,
    );
  };

  const overH2 = async (request: H2Request): Promise<void> => {
    const outcome: H2Outcome = await sessions
      .get(request.servername, request.handWritten)
      .then((session) => session.request(request.fields, EXCHANGE_TIMEOUT_MS))
      .catch((error: unknown) => ({ kind: 'failed', error: `no session: ${String(error)}` }));
    if (request.handWritten) result.http2.handWritten += 1;
    const data = outcome.kind === 'response' ? { body: outcome.body, expect: request.expect } : undefined;
    record(result.http2, h2Problems(outcome, request, knowledge), answerOf2(outcome), data, () =>
      describeH2Request(request, knowledge),
    );
  };

  try {
    for (let batch = 0; !done(); batch += 1) {
      const requests = fc.sample(cases, { seed: options.seed + batch, numRuns: BATCH });
      const overH2Requests = requests.map((request, index) =>
        overHttp2(request, knowledge, DEFAULT_LIMITS, index % 4 === 0),
      );
      result.http1Only += overH2Requests.filter((request) => request === undefined).length;
      let nextHttp1 = 0;
      let nextHttp2 = 0;
      await Promise.all([
        ...http1Pools.map(async (pool) => {
          for (let index = nextHttp1++; index < requests.length && !done(); index = nextHttp1++)
            await overHttp1(pool, requests[index] as FuzzRequest);
        }),
        ...Array.from({ length: options.http2Streams }, async () => {
          for (let index = nextHttp2++; index < requests.length && !done(); index = nextHttp2++) {
            const request = overH2Requests[index];
            if (request) await overH2(request);
          }
        }),
      ]);
      result.elapsedMs = Date.now() - started;
      result.http2Sessions = sessions.opened;
      if (!warm && sent() >= (options.warmUpRequests ?? 0)) {
        warm = true;
        await options.warmedUp?.(result);
      }
      await options.progress?.(result);
    }
  } finally {
    for (const pool of http1Pools) pool.closeAll();
    sessions.closeAll();
  }
  result.stoppedBy = sent() >= options.requests ? 'count' : 'time';
  result.elapsedMs = Date.now() - started;
  return result;
}

/** The fuzz properties' cases, mixed. */
export function soakRequests(knowledge: FixtureKnowledge, port: number): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 3, arbitrary: authorizationRequests(knowledge) },
    { weight: 2, arbitrary: hostRequests(knowledge, port) },
    { weight: 2, arbitrary: requestLineRequests(knowledge) },
  );
}

function emptyTally(): ProtocolTally {
  return { requests: 0, disagreements: 0, wrongTenantData: 0, serverErrors: 0, answers: {}, handWritten: 0 };
}

function answerOf1(outcome: RawOutcome | undefined): string {
  return outcome?.kind === 'response' ? String(outcome.response.status) : 'failed';
}

function answerOf2(outcome: H2Outcome): string {
  if (outcome.kind === 'response') return String(outcome.status);
  return outcome.kind === 'reset' ? `reset ${outcome.code}` : 'failed';
}

function dataOf1(
  outcome: RawOutcome | undefined,
  expect: Expectation,
): { body: Buffer; expect: Expectation } | undefined {
  if (outcome?.kind !== 'response') return undefined;
  return {
    body: Buffer.from(
      `${outcome.response.head}\r\n\r\n${outcome.response.body.toString('latin1')}`,
      'latin1',
    ),
    expect,
  };
}

/** Every fixture customer id, and whose it is (`production:acme`). */
function customerOwners(knowledge: FixtureKnowledge): Map<string, string> {
  const owners = new Map<string, string>();
  for (const tenant of knowledge.tenantIds) {
    for (const environment of ['production', 'sandbox'] as const) {
      for (const customer of knowledge.customers(tenant, environment))
        owners.set(customer.id, `${environment}:${tenant}`);
    }
  }
  return owners;
}

/** Whether `answer` names a customer that is not of the tenant and environment the request may see. */
function carriesForeignData(
  answer: Buffer,
  expect: Expectation,
  owners: ReadonlyMap<string, string>,
): boolean {
  const ids = answer.toString('latin1').match(/cus_[A-Za-z0-9_]+/g);
  if (!ids) return false;
  const allowed = expect.kind === 'rejected' ? undefined : `${expect.environment}:${expect.tenant}`;
  return ids.some((id) => owners.get(id) !== allowed);
}
