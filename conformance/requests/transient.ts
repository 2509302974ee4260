// Which answers are not the target's answer to the rule's question, and how long to wait before
// asking again. A 429 says "too many requests from you", a 502/503/504 says "nobody behind me
// could answer now": a gateway, a load balancer or a pod restarting during a deploy says them
// before the application sees the request, so judging them would judge the front, not the target.
import type { ResponseExchange } from './exchange.ts';

export const RATE_LIMITED = 429;
const UNAVAILABLE = new Set([502, 503, 504]);

/** 502, 503, 504: nobody behind the front could answer now. */
export function isUnavailable(status: number): boolean {
  return UNAVAILABLE.has(status);
}

export function isTransient(exchange: ResponseExchange): boolean {
  return exchange.status === RATE_LIMITED || isUnavailable(exchange.status);
}

/** The first backoff step without Retry-After; each further retry waits about twice as long. */
const BACKOFF_BASE_MS = 500;

/**
 * Milliseconds to wait before sending the request again: what Retry-After says (seconds or an
 * HTTP-date, RFC 9110 §10.2.3), otherwise exponential backoff with jitter, so that the workers of
 * a run (and other clients) that met the same answer do not all come back at the same moment.
 */
export function retryDelayMs(
  exchange: ResponseExchange,
  retriesSoFar: number,
  now: number = Date.now(),
  random: () => number = Math.random,
): number {
  const told = retryAfterMs(exchange.headers['retry-after'], now);
  if (told !== undefined) return told;
  const step = BACKOFF_BASE_MS * 2 ** retriesSoFar;
  return Math.round(step / 2 + random() * (step / 2));
}

/** Retry-After as milliseconds from `now`, or undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Requests per second that rate-limit header fields announce, when they say both a quota and
 * its window: `RateLimit-Policy: 10;w=1` or `"default";q=10;w=1` (the IETF httpapi drafts). A
 * bare X-RateLimit-Limit is not read: its window differs from one API to the next.
 */
export function announcedRate(headers: Record<string, string>): number | undefined {
  const policy = headers['ratelimit-policy'];
  if (!policy) return undefined;
  const first = policy.split(',')[0] ?? '';
  const window = /(?:^|;)\s*w=(\d+(?:\.\d+)?)/.exec(first)?.[1];
  const quota =
    /(?:^|;)\s*q=(\d+(?:\.\d+)?)/.exec(first)?.[1] ?? /^\s*(\d+(?:\.\d+)?)\s*(?:;|$)/.exec(first)?.[1];
  if (window === undefined || quota === undefined) return undefined;
  const rate = Number(quota) / Number(window);
  return Number.isFinite(rate) && rate > 0 ? rate : undefined;
}
