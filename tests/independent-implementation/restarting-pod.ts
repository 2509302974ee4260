// A load balancer during a deploy: one pod behind it is restarting, and every fifth request
// lands on it and gets 503 (Envoy's text, no Retry-After) before the implementation sees it.
// Deterministic, so that no request can meet the restarting pod more than once in a row.
import { FrontCounters } from './front-counters.ts';
import type { Gate } from './gate-front.ts';

export const UNAVAILABLE_EVERY = 5;

export function restartingPodGate(): { gate: Gate; counters: FrontCounters } {
  const counters = new FrontCounters();
  let seen = 0;
  return {
    counters,
    gate: () => {
      seen += 1;
      const unavailable = seen % UNAVAILABLE_EVERY === 0;
      counters.record(performance.now(), unavailable);
      if (!unavailable) return { pass: true };
      return {
        answer: {
          status: 503,
          headers: { 'Content-Type': 'text/plain' },
          body: 'upstream connect error or disconnect/reset before headers. reset reason: connection termination',
        },
      };
    },
  };
}
