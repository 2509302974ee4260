// The HTTP/2 keep-alive rows of `npm run bench`: the one verified HTTP/2 request that fixes each
// scenario's expected answer (and checks the bare node:http2 baseline sends the same bytes), the
// load run's settings — a few sessions, each with many streams in flight — and the rounds of the
// reference against bare.
import { connect, constants } from 'node:http2';
import { LoadChild, ServerChild, type Http2Load } from './children.ts';
import {
  answerName,
  keepAliveRequest,
  measureLoad,
  mirrorOnBare,
  rotated,
  type Answer,
  type Scenario,
} from './keep-alive.ts';
import { HTTP2_KEEP_ALIVE, type Http2LoadRequest } from './protocol.ts';
import type { KeepAliveRow, Measured } from './report.ts';

const TIMEOUT_MS = 10_000;

/**
 * One GET /v1/customers over HTTP/2 with certificate verification on, the tenant's name as SNI and
 * `:authority`: the exact answer (status, header fields in order, body) the load must get.
 * HTTP/2 has no reason phrase: `statusMessage` is ''.
 */
export function verifiedHttp2Answer(
  port: number,
  host: string,
  ca: string,
  authorization: string | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = connect(`https://127.0.0.1:${port}`, { servername: host, ca });
    const timer = setTimeout(() => session.destroy(new Error('no answer within 10 s')), TIMEOUT_MS);
    const failed = (error: Error): void => {
      clearTimeout(timer);
      session.destroy();
      reject(error);
    };
    session.on('error', failed);
    const stream = session.request({
      [constants.HTTP2_HEADER_PATH]: '/v1/customers',
      [constants.HTTP2_HEADER_AUTHORITY]: `${host}:${port}`,
      accept: 'application/json',
      ...(authorization ? { authorization } : {}),
    });
    stream.on('error', failed);
    let status = 0;
    let headers: [string, string][] = [];
    stream.on('response', (fields) => {
      status = Number(fields[constants.HTTP2_HEADER_STATUS] ?? 0);
      // In the order received; a repeated field's values are an array.
      headers = Object.entries(fields).flatMap(([name, value]): [string, string][] =>
        name.startsWith(':') || value === undefined
          ? []
          : (Array.isArray(value) ? value : [String(value)]).map((one): [string, string] => [name, one]),
      );
    });
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      clearTimeout(timer);
      session.close();
      resolve({ status, statusMessage: '', headers, body: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

/** The HTTP/2 load run of `scenario` on `port`, every answer to be `expected`. */
export function http2KeepAliveRequest(
  port: number,
  host: string,
  scenario: Scenario,
  expected: Answer,
  seconds: number,
  ca: string,
): Http2LoadRequest {
  return {
    ...keepAliveRequest(port, host, scenario, expected, seconds),
    connections: HTTP2_KEEP_ALIVE.sessions,
    streamsPerSession: HTTP2_KEEP_ALIVE.streamsPerSession,
    ca,
  };
}

export interface Http2Settings {
  certDir: string;
  ca: string;
  /** The tenant host every request names (SNI and `:authority`). */
  host: string;
  rounds: number;
  seconds: number;
  /** The 1-minute load average now, written with each row. */
  loadNow: () => number;
  progress: (text: string) => void;
}

/**
 * Every scenario over HTTP/2 on `reference` and on a bare node:http2 server of its own, in turn
 * (a different one first in each round), after making bare send the reference's bytes.
 */
export async function measureHttp2KeepAlive(
  reference: ServerChild,
  scenarios: readonly Scenario[],
  settings: Http2Settings,
): Promise<KeepAliveRow[]> {
  const { certDir, ca, host } = settings;
  const load: Http2Load = new LoadChild('http2-load-process.ts', 'HTTP/2 load');
  let bare: ServerChild | undefined;
  try {
    bare = await ServerChild.start(
      { kind: 'bare', certDir, tenantIds: [], http2: true },
      'bare HTTP/2 server',
    );
    const rows: KeepAliveRow[] = [];
    for (const scenario of scenarios) {
      const expected = await verifiedHttp2Answer(reference.port, host, ca, scenario.authorization);
      await mirrorOnBare(bare, expected, scenario, host, ca, verifiedHttp2Answer);
      const runs = { reference: [] as Measured[], bare: [] as Measured[] };
      const targets = [
        ['reference', reference],
        ['bare', bare],
      ] as const;
      for (let round = 0; round < settings.rounds; round += 1)
        for (const [target, server] of rotated(targets, round))
          runs[target].push(
            await measureLoad(
              load,
              server,
              http2KeepAliveRequest(server.port, host, scenario, expected, settings.seconds, ca),
            ),
          );
      rows.push({
        scenario: scenario.name,
        server: 'compiled',
        answer: answerName(expected),
        reference: runs.reference,
        bare: runs.bare,
        load: settings.loadNow(),
      });
      settings.progress(`  ${scenario.name} over HTTP/2: done`);
    }
    return rows;
  } finally {
    load.stop();
    await bare?.stop();
  }
}
