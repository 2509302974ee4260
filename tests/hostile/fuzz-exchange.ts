// One fuzz request over HTTP/1.1 and the judgement of its answer: written as raw bytes on a
// keep-alive connection of the pool, read back, checked against the invariants. Shared by the fuzz
// properties (fuzz-runner.ts) and the soak (soak.ts).
import {
  needsOwnConnection,
  render,
  requestBytes,
  type FixtureKnowledge,
  type FuzzRequest,
} from './fuzz-model.ts';
import { problemsWith } from './response-invariants.ts';
import type { ConnectionPool, RawOutcome } from './raw-tls-connection.ts';

export async function exchangeOverHttp1(
  pool: ConnectionPool,
  knowledge: FixtureKnowledge,
  request: FuzzRequest,
  timeoutMs: number,
): Promise<{ outcome: RawOutcome; headRequest: boolean; problems: string[] }> {
  const headRequest = render(request.method, knowledge).toString('latin1') === 'HEAD';
  const outcome = await pool.exchange(request.servername, requestBytes(request, knowledge), {
    headRequest,
    isolated: needsOwnConnection(request, knowledge),
    timeoutMs,
  });
  return { outcome, headRequest, problems: problemsWith(outcome, request.expect, knowledge, headRequest) };
}
