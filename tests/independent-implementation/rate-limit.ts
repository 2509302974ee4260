// Rate limiting in front of the implementation, before authentication, per client address, as a
// gateway does it. Two limiters:
// - a token bucket (`ratePerSecond`, `burst`) whose 429 says either `Retry-After: 1` or nothing
//   at all about when to come back: the client must find the rate on its own;
// - a fixed one-second window of `perSecond` requests that tells the client everything on every
//   answer: `RateLimit-Policy: N;w=1` and `RateLimit: limit=N, remaining=…, reset=…` (the IETF
//   draft's fields) and `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (the
//   reset as Unix seconds, the GitHub convention).
// Every request is recorded in the front's counters, refused or not.
import type { IncomingMessage } from 'node:http';
import { FrontCounters } from './front-counters.ts';
import type { Gate, GateAnswer, GateDecision } from './gate-front.ts';

export type RateLimit =
  | { kind: 'token-bucket'; ratePerSecond: number; burst: number; retryAfter: boolean }
  | { kind: 'fixed-window'; perSecond: number };

const TOO_MANY = JSON.stringify({
  error: { code: 'rate_limited', message: 'Too many requests: slow down and try again later.' },
});

function tooMany(headers: Readonly<Record<string, string>>): GateAnswer {
  return {
    status: 429,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
    body: TOO_MANY,
  };
}

function clientOf(request: IncomingMessage): string {
  return request.socket.remoteAddress ?? 'unknown';
}

/** A token bucket per client address: `burst` tokens, refilled at `ratePerSecond`. */
function tokenBucket(limit: Extract<RateLimit, { kind: 'token-bucket' }>, now: () => number) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (client: string): GateDecision => {
    const time = now();
    const bucket = buckets.get(client) ?? { tokens: limit.burst, at: time };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((time - bucket.at) * limit.ratePerSecond) / 1000);
    bucket.at = time;
    buckets.set(client, bucket);
    if (bucket.tokens < 1) return { answer: tooMany(limit.retryAfter ? { 'Retry-After': '1' } : {}) };
    bucket.tokens -= 1;
    return { pass: true };
  };
}

/** `perSecond` requests per client in each wall-clock second, told on every answer. */
function fixedWindow(limit: Extract<RateLimit, { kind: 'fixed-window' }>, wallClock: () => number) {
  const windows = new Map<string, { second: number; count: number }>();
  return (client: string): GateDecision => {
    const second = Math.floor(wallClock() / 1000);
    const window = windows.get(client);
    const current = window?.second === second ? window : { second, count: 0 };
    windows.set(client, current);
    const allowed = current.count < limit.perSecond;
    if (allowed) current.count += 1;
    const remaining = String(limit.perSecond - current.count);
    // The next window begins within a second: in whole seconds, rounded up, that is always 1.
    const reset = '1';
    const headers = {
      'RateLimit-Policy': `${limit.perSecond};w=1`,
      RateLimit: `limit=${limit.perSecond}, remaining=${remaining}, reset=${reset}`,
      'X-RateLimit-Limit': String(limit.perSecond),
      'X-RateLimit-Remaining': remaining,
      'X-RateLimit-Reset': String(second + 1),
    };
    return allowed ? { pass: true, answerHeaders: headers } : { answer: tooMany(headers) };
  };
}

export interface RateLimitGate {
  gate: Gate;
  counters: FrontCounters;
}

export function rateLimitGate(limit: RateLimit): RateLimitGate {
  const counters = new FrontCounters();
  const decide =
    limit.kind === 'token-bucket'
      ? tokenBucket(limit, () => performance.now())
      : fixedWindow(limit, () => Date.now());
  return {
    counters,
    gate: (request) => {
      const decision = decide(clientOf(request));
      counters.record(performance.now(), 'answer' in decision);
      return decision;
    },
  };
}
