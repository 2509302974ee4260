// The HTTP/2 load generator (autocannon speaks HTTP/1.1 only): a few node:http2 client sessions to
// 127.0.0.1, the tenant's name as SNI and `:authority`, each keeping many streams in flight, one
// GET after another on each stream slot until the time is up. Every session verifies the server's
// certificate against the CA, and every answer is compared with the one expected (status and
// body), so a fast wrong answer does not count. In a process of its own, like the other load
// generators, so that the server's process measures only the server.
import { connect, constants, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';
import { once } from 'node:events';
import { percentile } from './numbers.ts';
import { answerMeasurements } from './protocol.ts';
import type { Http2LoadRequest, LoadResult } from './protocol.ts';

/** No session opens, and no request is answered, later than this; a session that fails ends its loops. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Latencies kept for the percentiles: far more than a run of tens of seconds makes on loopback. */
const MAX_KEPT_LATENCIES = 2_000_000;

answerMeasurements(measure);

async function measure(request: Http2LoadRequest): Promise<LoadResult> {
  if (request.warmupSeconds > 0) await run(request, request.warmupSeconds);
  return run(request, request.durationSeconds);
}

/** What a run counted as it went. */
interface Tally {
  requests: number;
  latencies: number[];
  wrongAnswers: number;
  errors: number;
  bodyBytes: number;
}

async function run(request: Http2LoadRequest, seconds: number): Promise<LoadResult> {
  const sessions = await Promise.all(Array.from({ length: request.connections }, () => open(request)));
  const fields = requestFields(request);
  const tally: Tally = { requests: 0, latencies: [], wrongAnswers: 0, errors: 0, bodyBytes: 0 };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  // One guard for the whole run rather than a timer per request (which would cost the generator
  // as much as a request): a request still unanswered this long after the end fails with its session.
  const guard = setTimeout(
    () => sessions.forEach((session) => session.destroy(new Error('no answer within 10 s'))),
    seconds * 1000 + REQUEST_TIMEOUT_MS,
  );
  try {
    await Promise.all(
      sessions.flatMap((session) =>
        Array.from({ length: request.streamsPerSession }, () =>
          streamSlot(session, fields, request, deadline, tally),
        ),
      ),
    );
  } finally {
    clearTimeout(guard);
    for (const session of sessions) session.destroy();
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
  const { requests, latencies } = tally;
  latencies.sort((a, b) => a - b);
  return {
    requests,
    requestsPerSecond: requests / elapsedSeconds,
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP99Ms: percentile(latencies, 0.99),
    wrongAnswers: tally.wrongAnswers,
    errors: tally.errors,
    bytesPerAnswer: requests === 0 ? 0 : tally.bodyBytes / requests,
  };
}

/** A verified session, ready for requests. */
async function open(request: Http2LoadRequest): Promise<ClientHttp2Session> {
  const session = connect(`https://127.0.0.1:${request.port}`, {
    servername: request.servername,
    ca: request.ca,
  });
  const timer = setTimeout(() => session.destroy(new Error('no session within 10 s')), REQUEST_TIMEOUT_MS);
  try {
    await once(session, 'connect');
  } finally {
    clearTimeout(timer);
  }
  // Later failures of the session fail its streams, which are counted; the event needs a listener.
  session.on('error', () => undefined);
  return session;
}

/** The request's header fields as HTTP/2 sends them: `host` becomes `:authority`, names lower-case. */
function requestFields(request: Http2LoadRequest): OutgoingHttpHeaders {
  const fields: OutgoingHttpHeaders = {
    [constants.HTTP2_HEADER_METHOD]: 'GET',
    [constants.HTTP2_HEADER_PATH]: request.path,
    [constants.HTTP2_HEADER_SCHEME]: 'https',
  };
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    fields[lower === 'host' ? constants.HTTP2_HEADER_AUTHORITY : lower] = value;
  }
  return fields;
}

/** One stream slot of a session: a request, then the next as soon as its answer has ended. */
async function streamSlot(
  session: ClientHttp2Session,
  fields: OutgoingHttpHeaders,
  request: Http2LoadRequest,
  deadline: number,
  tally: Tally,
): Promise<void> {
  while (performance.now() < deadline && !session.closed && !session.destroyed) {
    const begin = performance.now();
    try {
      const answer = await get(session, fields);
      tally.requests += 1;
      if (tally.latencies.length < MAX_KEPT_LATENCIES) tally.latencies.push(performance.now() - begin);
      tally.bodyBytes += Buffer.byteLength(answer.body);
      if (answer.status !== request.expectedStatus || answer.body !== request.expectedBody)
        tally.wrongAnswers += 1;
    } catch {
      tally.errors += 1;
    }
  }
}

function get(
  session: ClientHttp2Session,
  fields: OutgoingHttpHeaders,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request(fields, { endStream: true });
    let status = 0;
    let body = '';
    stream.on('response', (headers) => {
      status = Number(headers[constants.HTTP2_HEADER_STATUS] ?? 0);
    });
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => resolve({ status, body }));
    stream.on('error', reject);
  });
}
