// The one place where the suite makes an exchange with the target. Both clients (api-client.ts,
// raw-client.ts) build the request and know how to put it on the wire; everything that holds
// for every exchange of the run happens here, once: not sending once the target has stopped
// answering, the run's pace, the time limit, sending again after a transient answer (429, 502,
// 503, 504: a front's answer, never judged), counting answers, and telling the run's listener.
import {
  retryOf,
  type Attempt,
  type Exchange,
  type ExchangeListener,
  type RequestSummary,
  type ResponseExchange,
  type TransientSignal,
} from './exchange.ts';
import { notSent, recordAnswer, stoppedReason } from './answer-watch.ts';
import {
  announcedRate,
  backoffMs,
  CLOSED_BEFORE_ANSWER,
  isTransient,
  RATE_LIMITED,
  retryAfterMs,
  retryDelayMs,
  slowsTheRun,
  unavailableError,
} from './transient.ts';
import { runSettings } from '../settings.ts';
import {
  budgetLeft,
  keepUnder,
  LONGEST_TIMER_MS,
  slowDown,
  spendRetryBudget,
  takeSlot,
  trafficFileOfRun,
  withTraffic,
} from './shared-pacing.ts';

/** Puts one request on the wire and reads its answer, or says why there was none. */
export type Transmit = (request: RequestSummary, timeoutMs: number) => Promise<Exchange>;

export interface ExchangeSettings {
  /** The whole exchange's time limit, TLS handshake included. */
  timeoutMs: number;
  /** Told of every exchange, sent or not, each try included (the run's HAR is made of them). */
  onExchange?: ExchangeListener;
}

export async function makeExchange(
  request: RequestSummary,
  transmit: Transmit,
  settings: ExchangeSettings,
): Promise<Exchange> {
  const stopped = stoppedReason();
  if (stopped) return told(notSent(request, stopped), settings);
  const limits = runSettings();
  const attempts: Attempt[] = [];
  let servedBefore: number | undefined;
  let sent = request;
  for (;;) {
    const slot = withTraffic((state) => ({ waitMs: takeSlot(state, Date.now()), served: state.served ?? 0 }));
    servedBefore ??= slot.served;
    await sleep(slot.waitMs);
    const exchange = await transmit(sent, settings.timeoutMs);
    if (exchange.kind === 'response') heedAnnouncedRate(exchange);
    const transient = transientOf(exchange, attempts);
    if (transient === undefined) {
      if (exchange.kind === 'response') withTraffic((state) => (state.served = (state.served ?? 0) + 1));
      recordAnswer(exchange.kind === 'response', request.refusalExpected === true);
      return told(withAttempts(theTargets(exchange), attempts), settings);
    }
    const waitMs = retryWait(exchange, transient, attempts.length);
    const tries = attempts.length + 1;
    const notAgain =
      attempts.length >= limits.maxRetries
        ? `${tries} tries (--max-retries ${limits.maxRetries})`
        : noteTransient(exchange, transient, waitMs, limits.retryBudgetMs);
    if (notAgain !== undefined) {
      const bound = notAgain.startsWith(`${tries} tries`)
        ? notAgain
        : `${tries} ${tries === 1 ? 'try' : 'tries'}, when ${notAgain}`;
      const served = withTraffic((state) => state.served ?? 0) - servedBefore;
      // Not sent again for want of retry budget, with nothing served meanwhile: a front refusing
      // the run (answer-watch.ts). Bounded by --max-retries, it may be this request alone.
      const budgetBound = !notAgain.startsWith(`${tries} tries`);
      recordAnswer(budgetBound && served === 0 ? 'transientOnly' : true, request.refusalExpected === true);
      return told(stillTransient(exchange, transient, attempts, bound, served), settings);
    }
    told({ ...exchange, retriedAfterMs: waitMs }, settings);
    attempts.push({
      id: sent.id,
      ...(typeof transient === 'number' ? { status: transient } : { signal: transient }),
      retriedAfterMs: waitMs,
    });
    await sleep(waitMs);
    sent = retryOf(request);
  }
}

/**
 * The transient status or signal of this try, or undefined when it is the target's answer. A
 * keep-alive connection closed before the answer is sent again once: closed again, on a new
 * connection, that is the target's refusal.
 */
function transientOf(exchange: Exchange, attempts: readonly Attempt[]): number | TransientSignal | undefined {
  if (exchange.kind === 'response') return isTransient(exchange) ? exchange.status : undefined;
  const { signal } = exchange;
  if (signal === CLOSED_BEFORE_ANSWER && attempts.some((attempt) => attempt.signal === signal))
    return undefined;
  return signal;
}

/** A failure the target answered itself (a refusal) carries no signal. */
function theTargets(exchange: Exchange): Exchange {
  if (exchange.kind === 'response' || exchange.signal === undefined) return exchange;
  const refusal = { ...exchange };
  delete refusal.signal;
  return refusal;
}

function withAttempts(exchange: Exchange, attempts: readonly Attempt[]): Exchange {
  return attempts.length > 0 ? { ...exchange, attempts: [...attempts] } : exchange;
}

/** Retry-After or backoff; a keep-alive connection closed as the request left is sent again at once. */
function retryWait(exchange: Exchange, transient: number | TransientSignal, retries: number): number {
  if (exchange.kind === 'response') return retryDelayMs(exchange, retries);
  return transient === CLOSED_BEFORE_ANSWER ? 0 : backoffMs(retries);
}

/** The announced rate this process last applied, and to which run's state: written only when it changes. */
let heeded: string | undefined;

/** A rate limit told on any answer (RateLimit-Policy) paces the run before it meets a 429. */
function heedAnnouncedRate(exchange: ResponseExchange): void {
  const rate = announcedRate(exchange.headers);
  const key = `${trafficFileOfRun() ?? ''} ${rate}`;
  if (rate === undefined || key === heeded) return;
  heeded = key;
  withTraffic((state) => keepUnder(state, rate));
}

/**
 * Spends the wait from the run's retry budget if it is there, and only then slows the run on a
 * 429 (or ENHANCE_YOUR_CALM): a wait longer than what is left of the budget ends this exchange at
 * once and holds back nobody else's. Undefined when the request is sent again; otherwise why not.
 */
function noteTransient(
  exchange: Exchange,
  transient: number | TransientSignal,
  waitMs: number,
  budgetMs: number,
): string | undefined {
  return withTraffic((state) => {
    const left = budgetLeft(state, budgetMs);
    if (!spendRetryBudget(state, waitMs, budgetMs)) {
      const asked =
        exchange.kind === 'response' ? retryAfterMs(exchange.headers['retry-after'], Date.now()) : undefined;
      return left > 0 && asked !== undefined && asked > left
        ? `its Retry-After (${exchange.kind === 'response' ? exchange.headers['retry-after'] : ''}) asked for a longer wait than the ${seconds(left)} left of the run's retry budget (--retry-budget)`
        : `the run's retry budget was spent (--retry-budget)`;
    }
    const slows = transient === RATE_LIMITED || (typeof transient === 'string' && slowsTheRun(transient));
    if (slows) {
      const announced = exchange.kind === 'response' ? announcedRate(exchange.headers) : undefined;
      slowDown(state, Date.now(), waitMs, announced);
    }
    return undefined;
  });
}

/**
 * The last try was transient too: no answer of the target's own, so the rule can't be judged.
 * When other requests of the run were served meanwhile, the message says a front refused these.
 */
function stillTransient(
  last: Exchange,
  transient: number | TransientSignal,
  attempts: readonly Attempt[],
  bound: string,
  served: number,
): Exchange {
  const answers = [
    ...new Set([...attempts.map((attempt) => attempt.status ?? attempt.signal), transient]),
  ].join(', ');
  let error: string;
  if (served > 0)
    error = `a front refused these requests, not the deployment: it answered ${answers} to all ${bound}, while ${served} other request${served === 1 ? '' : 's'} of this run ${served === 1 ? 'was' : 'were'} served meanwhile. Let the suite's requests through that front (its quota, filter or stream limit for the suite's address), or raise --retry-budget / --max-retries: until then the deployment cannot be certified through it.`;
  else if (transient === RATE_LIMITED && bound.includes('Retry-After'))
    error = `the target refused this request with a quota: answered 429 to all ${bound}. Lift the quota for the suite's address, or raise --retry-budget above its Retry-After.`;
  else if (transient === RATE_LIMITED)
    error = `the target rate-limited this run: answered 429 to all ${bound}. Raise its limit for the suite's address or use --max-rps.`;
  else if (typeof transient === 'number') error = unavailableError(transient, bound);
  else
    error = `the target's front did not process the request: ${answers} to all ${bound}. Check the front's connection and stream limits, or raise --max-retries.`;
  return {
    kind: 'failure',
    request: last.request,
    durationMs: last.durationMs,
    error,
    ...(typeof transient === 'number' ? { transient } : { signal: transient }),
    ...(attempts.length > 0 ? { attempts: [...attempts] } : {}),
  };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function told(exchange: Exchange, settings: ExchangeSettings): Exchange {
  settings.onExchange?.(exchange);
  return exchange;
}

/** Every wait is capped before it reaches a timer. */
function sleep(ms: number): Promise<void> {
  return ms > 0
    ? new Promise((resolve) => setTimeout(resolve, Math.min(ms, LONGEST_TIMER_MS)))
    : Promise.resolve();
}
