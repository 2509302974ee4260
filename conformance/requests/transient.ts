// Which answers are not the target's answer to the rule's question, and how long to wait before
// asking again. A 429 says "too many requests from you", a 502/503/504 says "nobody behind me
// could answer now": a gateway, a load balancer or a pod restarting during a deploy says them
// before the application sees the request, so judging them would judge the front, not the target.
import type { ResponseExchange, TransientSignal } from './exchange.ts';

export const RATE_LIMITED = 429;
const UNAVAILABLE = new Set([502, 503, 504]);

/**
 * What to do when every try of a request was answered 502/503/504 and nothing shows more: the
 * deployment may be down. The reports replace it when the run shows a front that refuses only
 * some requests (conformance/report/front-refusals.ts), so it is said in one place.
 */
export const HEALTH_ADVICE =
  'Check that the deployment is healthy (a restart, a deploy), or raise --max-retries.';

/** The error of a request answered `status` (502/503/504) at every try, `bound` saying how many. */
export function unavailableError(status: number, bound: string): string {
  return `the target was unavailable: answered ${status} to all ${bound}. ${HEALTH_ADVICE}`;
}

/** 502, 503, 504: nobody behind the front could answer now. */
export function isUnavailable(status: number): boolean {
  return UNAVAILABLE.has(status);
}

export function isTransient(exchange: ResponseExchange): boolean {
  return exchange.status === RATE_LIMITED || isUnavailable(exchange.status);
}

/** HTTP/1.1: a keep-alive connection the front closed before any byte of the answer; sent again once. */
export const CLOSED_BEFORE_ANSWER: TransientSignal = 'connection closed before the answer';

/** ENHANCE_YOUR_CALM slows the whole run, as a 429 does. */
export function slowsTheRun(signal: TransientSignal): boolean {
  return signal.endsWith('ENHANCE_YOUR_CALM');
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
  return backoffMs(retriesSoFar, random);
}

/** Exponential backoff with jitter: about 0.5 s, 1 s, 2 s, 4 s, each between half and all of its step. */
export function backoffMs(retriesSoFar: number, random: () => number = Math.random): number {
  const step = BACKOFF_BASE_MS * 2 ** retriesSoFar;
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * Retry-After as milliseconds from `now`, or undefined when absent or not a value RFC 9110 §10.2.3
 * allows: `delay-seconds` (digits only: "1.5" and "-5" are not) or an HTTP-date in one of its
 * three formats (§5.6.7: IMF-fixdate, RFC 850, asctime). Anything else ("May 3", "soon") is not
 * read as "now": the caller falls back to its backoff.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = httpDate(text, now);
  return date === undefined ? undefined : Math.max(0, date - now);
}

const DAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** An HTTP-date (RFC 9110 §5.6.7) as epoch milliseconds, or undefined when `text` is not one. */
export function httpDate(text: string, now: number): number | undefined {
  let parts: [string, string, string, string, string, string] | undefined;
  const fix = IMF_FIXDATE.exec(text);
  if (fix) parts = [fix[4] ?? '', fix[3] ?? '', fix[2] ?? '', fix[5] ?? '', fix[6] ?? '', fix[7] ?? ''];
  const rfc850 = RFC_850.exec(text);
  if (rfc850) {
    // A two-digit year more than 50 years ahead is of the past century (§5.6.7).
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(rfc850[4]);
    if (year > thisYear + 50) year -= 100;
    parts = [
      String(year),
      rfc850[3] ?? '',
      rfc850[2] ?? '',
      rfc850[5] ?? '',
      rfc850[6] ?? '',
      rfc850[7] ?? '',
    ];
  }
  const asctime = ASCTIME.exec(text);
  if (asctime)
    parts = [
      asctime[7] ?? '',
      asctime[2] ?? '',
      asctime[3] ?? '',
      asctime[4] ?? '',
      asctime[5] ?? '',
      asctime[6] ?? '',
    ];
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = parts;
  const numbers = [
    Number(year),
    MONTHS.indexOf(month),
    Number(day.trim()),
    Number(hour),
    Number(minute),
    Number(second),
  ];
  const [y = 0, m = 0, d = 0, h = 0, min = 0, sec = 0] = numbers;
  if (d < 1 || d > 31 || h > 23 || min > 59 || sec > 60) return undefined;
  const date = Date.UTC(y, m, d, h, min, sec);
  // 31 Feb is no date: Date.UTC would roll it over into March.
  return new Date(date).getUTCDate() === d ? date : undefined;
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
