// The load generator: autocannon in a process of its own (so that the server's process measures
// only the server), over HTTPS keep-alive to 127.0.0.1 with the tenant's name as SNI and `Host`.
// autocannon turns certificate verification off on its connections (it always passes
// rejectUnauthorized: false to tls.connect); bench/run.ts checks the certificate once with a
// verifying client before any load, so what is measured is the certificate a client would trust.
import autocannon from 'autocannon';
import { answerMeasurements } from './protocol.ts';
import type { LoadRequest, LoadResult } from './protocol.ts';

answerMeasurements(measure);

async function measure(request: LoadRequest): Promise<LoadResult> {
  if (request.warmupSeconds > 0) await run(request, request.warmupSeconds);
  const result = await run(request, request.durationSeconds);
  const statusCounts = result.statusCodeStats ?? {};
  const expected = statusCounts[String(request.expectedStatus) as `${number}`]?.count ?? 0;
  const answered = Object.values(statusCounts).reduce((sum, entry) => sum + (entry.count ?? 0), 0);
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    wrongAnswers: answered - expected + result.mismatches + result.timeouts,
    errors: result.errors,
    bytesPerAnswer: result.requests.total === 0 ? 0 : result.throughput.total / result.requests.total,
  };
}

function run(request: LoadRequest, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `https://127.0.0.1:${request.port}${request.path}`,
    servername: request.servername,
    headers: request.headers,
    connections: request.connections,
    pipelining: 1,
    duration: seconds,
    // Every answer is compared with the one expected: a fast wrong answer must not count.
    expectBody: request.expectedBody,
  });
}
