// New TLS connections per second: `concurrency` loops, each opening a connection (resuming the
// previous connection's TLS session when asked), sending one request with `Connection: close`
// and reading the answer to its end, until the time is up. Certificates are verified against the
// CA, as a real client would. In a process of its own, like the other load generator.
import { connect, type TLSSocket } from 'node:tls';
import { percentile } from './numbers.ts';
import { answerMeasurements } from './protocol.ts';
import type { HandshakeRequest, HandshakeResult } from './protocol.ts';

answerMeasurements(measure);

async function measure(request: HandshakeRequest): Promise<HandshakeResult> {
  const deadline = Date.now() + request.durationMs;
  const latencies: number[] = [];
  let resumed = 0;
  let failures = 0;
  const started = performance.now();
  const loop = async (): Promise<void> => {
    let session: Buffer | undefined;
    while (Date.now() < deadline) {
      const begin = performance.now();
      try {
        const outcome = await oneConnection(request, request.resumeSessions ? session : undefined);
        session = outcome.session ?? session;
        if (outcome.resumed) resumed += 1;
        latencies.push(performance.now() - begin);
      } catch {
        failures += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: request.concurrency }, loop));
  const elapsedSeconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    connections: latencies.length,
    connectionsPerSecond: latencies.length / elapsedSeconds,
    resumedShare: latencies.length === 0 ? 0 : resumed / latencies.length,
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP99Ms: percentile(latencies, 0.99),
    failures,
  };
}

/** Opens a connection, sends the request, and resolves when the server has closed it. */
function oneConnection(
  request: HandshakeRequest,
  session: Buffer | undefined,
): Promise<{ session?: Buffer; resumed: boolean }> {
  return new Promise((resolve, reject) => {
    let latestSession: Buffer | undefined;
    let answered = false;
    // Read at the handshake: after the close, isSessionReused() no longer answers.
    let resumed = false;
    const socket: TLSSocket = connect({
      host: '127.0.0.1',
      port: request.port,
      servername: request.servername,
      ca: request.ca,
      ...(session ? { session } : {}),
    });
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 10 s')), 10_000);
    socket.on('session', (ticket: Buffer) => {
      latestSession = ticket;
    });
    socket.once('secureConnect', () => {
      resumed = socket.isSessionReused();
      socket.write(request.request);
    });
    socket.on('data', (chunk: Buffer) => {
      answered ||= chunk.length > 0;
    });
    socket.on('error', (error: Error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (answered) resolve({ ...(latestSession ? { session: latestSession } : {}), resumed });
      else reject(new Error('closed without an answer'));
    });
  });
}
