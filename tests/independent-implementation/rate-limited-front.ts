// The independent implementation behind a rate-limiting gateway (gate-front.ts with a limiter of
// rate-limit.ts), with the target file that points the suite at the gateway. Each start has
// fresh counters, so that they count one run of the suite. The tests and
// bench/rate-limited-run.ts share it.
import type { FrontCounters } from './front-counters.ts';
import { startGateFront } from './gate-front.ts';
import { writeIndependentTarget, type WrittenTarget } from './independent-target.ts';
import { rateLimitGate, type RateLimit } from './rate-limit.ts';
import type { IndependentServer } from './server.ts';

/** The acceptance case: 5 requests a second per client, bursts of 10, `Retry-After: 1` on a 429. */
export const ACCEPTANCE_LIMIT: RateLimit = {
  kind: 'token-bucket',
  ratePerSecond: 5,
  burst: 10,
  retryAfter: true,
};

export interface RateLimitedFront {
  port: number;
  caPem: string;
  counters: FrontCounters;
  target: WrittenTarget;
  close(): Promise<void>;
}

export async function startRateLimitedFront(
  server: IndependentServer,
  limit: RateLimit,
): Promise<RateLimitedFront> {
  const { gate, counters } = rateLimitGate(limit);
  const front = await startGateFront({ upstreamPort: server.port, upstreamCa: server.caPem, gate });
  const target = await writeIndependentTarget({ ...server, port: front.port, caPem: front.caPem });
  return { port: front.port, caPem: front.caPem, counters, target, close: () => front.close() };
}
