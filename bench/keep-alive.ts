// The keep-alive measurement shared by `npm run bench` (run.ts) and `npm run bench:versions`
// (compare-versions.ts): the scenarios, the one verified request that fixes each scenario's
// expected answer, and a measured autocannon run with the server's CPU time around it.
import { request } from 'node:https';
import type { Fixtures } from '../schemas/generated/fixtures.ts';
import type { ServerChild } from './children.ts';
import type { FixedResponse, LoadRequest, LoadResult } from './protocol.ts';
import type { Measured } from './report.ts';

export const DOMAIN = 'localhost';
/** Well-formed, and no key of any data set: the unknown-key case. */
export const UNKNOWN_KEY = `mbk_prod_${'x'.repeat(32)}`;

export const KEEP_ALIVE = { connections: 10, warmupSeconds: 1 };

export interface Scenario {
  name: string;
  /** The Authorization header, or none. Never printed: only the scenario's name is. */
  authorization?: string;
}

/** The secret of the fixture key `id` (a public test value), or '' when there is none. */
export function fixtureSecret(fixtures: Fixtures, id: string): string {
  return fixtures.tenants.flatMap((tenant) => tenant.keys).find((key) => key.id === id)?.secret ?? '';
}

/** The keep-alive scenarios, with the shipped fixtures' keys: one per answer the API gives a key. */
export function keepAliveScenarios(fixtures: Fixtures): Scenario[] {
  const secret = (id: string): string => fixtureSecret(fixtures, id);
  return [
    { name: 'valid key, GET /v1/customers', authorization: `Bearer ${secret('key_acme_prod_full')}` },
    { name: 'no Authorization header' },
    { name: 'unknown key', authorization: `Bearer ${UNKNOWN_KEY}` },
    {
      name: 'key without the customers permission',
      authorization: `Bearer ${secret('key_acme_prod_no_customers')}`,
    },
  ];
}

export interface Answer {
  status: number;
  /** The reason phrase of the status line. */
  statusMessage: string;
  /** Every header field as sent, in order and spelling (Node's rawHeaders, as pairs). */
  headers: [string, string][];
  body: string;
}

/** Fields Node's ServerResponse adds to every answer itself: the bare baseline gets them alike. */
const ADDED_BY_NODE = new Set(['date', 'connection', 'keep-alive']);

/** What the bare baseline must write to send `answer`'s bytes: the fields Node adds are left to it. */
export function fixedResponseOf(answer: Answer): FixedResponse {
  return {
    status: answer.status,
    statusMessage: answer.statusMessage,
    headers: answer.headers.filter(([name]) => !ADDED_BY_NODE.has(name.toLowerCase())),
    body: answer.body,
  };
}

/**
 * How `bare` differs from `reference` byte for byte — status line, each header field in order,
 * body — apart from the value of `Date`. Empty when they are the same bytes.
 */
export function byteDifferences(reference: Answer, bare: Answer): string[] {
  const line = (answer: Answer): string => `${answer.status} ${answer.statusMessage}`;
  const fields = (answer: Answer): string[] =>
    answer.headers.map(([name, value]) => `${name}: ${name.toLowerCase() === 'date' ? '<date>' : value}`);
  const differences: string[] = [];
  if (line(reference) !== line(bare))
    differences.push(`status line ${line(bare)} instead of ${line(reference)}`);
  const [want, got] = [fields(reference), fields(bare)];
  if (want.join('\n') !== got.join('\n'))
    differences.push(`header fields [${got.join('; ')}] instead of [${want.join('; ')}]`);
  if (reference.body !== bare.body) differences.push('another body');
  return differences;
}

/**
 * Makes the bare baseline answer with the reference's exact bytes for `scenario`, and checks it
 * with one verified request to it (`ask`: over HTTP/1.1 unless said): a baseline that sent fewer
 * bytes would flatter it.
 */
export async function mirrorOnBare(
  bare: Pick<ServerChild, 'respond' | 'port'>,
  reference: Answer,
  scenario: Scenario,
  host: string,
  ca: string,
  ask: typeof verifiedAnswer = verifiedAnswer,
): Promise<void> {
  await bare.respond(fixedResponseOf(reference));
  const differences = byteDifferences(reference, await ask(bare.port, host, ca, scenario.authorization));
  if (differences.length > 0)
    throw new Error(
      `The bare baseline does not send the reference's bytes for "${scenario.name}": ${differences.join('; ')}.`,
    );
}

/** One request with certificate verification on: the exact answer the load must get. */
export function verifiedAnswer(
  port: number,
  host: string,
  ca: string,
  authorization: string | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/customers',
        servername: host,
        headers: {
          Host: `${host}:${port}`,
          Accept: 'application/json',
          ...(authorization ? { Authorization: authorization } : {}),
        },
        ca,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            statusMessage: res.statusMessage ?? '',
            headers: pairs(res.rawHeaders),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end();
  });
}

function pairs(raw: readonly string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let index = 0; index + 1 < raw.length; index += 2)
    result.push([raw[index] ?? '', raw[index + 1] ?? '']);
  return result;
}

export function answerName(answer: Answer): string {
  const code = /"code":"([a-z_]+)"/.exec(answer.body)?.[1];
  return code ? `${answer.status} ${code}` : `${answer.status}, ${Buffer.byteLength(answer.body)} B body`;
}

export function keepAliveRequest(
  port: number,
  host: string,
  scenario: Scenario,
  expected: Answer,
  seconds: number,
): LoadRequest {
  return {
    port,
    servername: host,
    path: '/v1/customers',
    headers: {
      host: `${host}:${port}`,
      accept: 'application/json',
      ...(scenario.authorization ? { authorization: scenario.authorization } : {}),
    },
    connections: KEEP_ALIVE.connections,
    durationSeconds: seconds,
    warmupSeconds: KEEP_ALIVE.warmupSeconds,
    expectedStatus: expected.status,
    expectedBody: expected.body,
  };
}

/** `items` started at `by` (modulo their number): who goes first changes from round to round. */
export function rotated<T>(items: readonly T[], by: number): T[] {
  const start = by % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

/** A load generator process: autocannon (HTTP/1.1) or the HTTP/2 one. */
export interface LoadGenerator<Request extends LoadRequest> {
  run(request: Request): Promise<LoadResult>;
}

export async function measureLoad<Request extends LoadRequest>(
  generator: LoadGenerator<Request>,
  server: Pick<ServerChild, 'usage'>,
  loadRequest: Request,
): Promise<Measured> {
  // Warm-up as a run of its own, so that the CPU time measured is that of the measured requests.
  await generator.run({ ...loadRequest, durationSeconds: loadRequest.warmupSeconds, warmupSeconds: 0 });
  const before = await server.usage();
  const load: LoadResult = await generator.run({ ...loadRequest, warmupSeconds: 0 });
  const after = await server.usage();
  return { load, cpuMicrosPerRequest: (after.cpuMicros - before.cpuMicros) / Math.max(1, load.requests) };
}
