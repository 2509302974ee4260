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
} from './exchange.ts';
import { notSent, recordAnswer, stoppedReason } from './answer-watch.ts';
import { announcedRate, isTransient, RATE_LIMITED, retryDelayMs } from './transient.ts';
import { ENV } from '../env.ts';
import { keepUnder, slowDown, spendRetryBudget, takeSlot, trafficLimits, withTraffic } from './traffic.ts';

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
  const limits = trafficLimits();
  const attempts: Attempt[] = [];
  let sent = request;
  for (;;) {
    await sleep(withTraffic((state) => takeSlot(state, Date.now())));
    const exchange = await transmit(sent, settings.timeoutMs);
    if (exchange.kind === 'response') heedAnnouncedRate(exchange);
    if (exchange.kind === 'failure' || !isTransient(exchange)) {
      recordAnswer(exchange.kind === 'response', request.refusalExpected === true);
      return told(attempts.length > 0 ? { ...exchange, attempts } : exchange, settings);
    }
    const waitMs = retryDelayMs(exchange, attempts.length);
    const retrying =
      attempts.length < limits.maxRetries && noteTransient(exchange, waitMs, limits.retryBudgetMs);
    if (!retrying) {
      recordAnswer(true, request.refusalExpected === true);
      return told(stillTransient(exchange, attempts, limits.maxRetries), settings);
    }
    told({ ...exchange, retriedAfterMs: waitMs }, settings);
    attempts.push({ id: sent.id, status: exchange.status, retriedAfterMs: waitMs });
    await sleep(waitMs);
    sent = retryOf(request);
  }
}

/** The announced rate this process last applied, and to which run's state: written only when it changes. */
let heeded: string | undefined;

/** A rate limit told on any answer (RateLimit-Policy) paces the run before it meets a 429. */
function heedAnnouncedRate(exchange: ResponseExchange): void {
  const rate = announcedRate(exchange.headers);
  const key = `${process.env[ENV.trafficFile] ?? ''} ${rate}`;
  if (rate === undefined || key === heeded) return;
  heeded = key;
  withTraffic((state) => keepUnder(state, rate));
}

/** Slows the run on a 429, and spends the wait from the retry budget if it is there. */
function noteTransient(exchange: ResponseExchange, waitMs: number, budgetMs: number): boolean {
  return withTraffic((state) => {
    if (exchange.status === RATE_LIMITED)
      slowDown(state, Date.now(), waitMs, announcedRate(exchange.headers));
    return spendRetryBudget(state, waitMs, budgetMs);
  });
}

/** The last try was transient too: no answer of the target's own, so the rule can't be judged. */
function stillTransient(last: ResponseExchange, attempts: readonly Attempt[], maxRetries: number): Exchange {
  const tries = attempts.length + 1;
  const bound =
    attempts.length >= maxRetries
      ? `${tries} tries (--max-retries ${maxRetries})`
      : `${tries} tries, when the run's retry budget was spent (--retry-budget)`;
  const error =
    last.status === RATE_LIMITED
      ? `the target rate-limited this run: answered 429 to all ${bound}. Raise its limit for the suite's address or use --max-rps.`
      : `the target was unavailable: answered ${last.status} to all ${bound}. Check that the deployment is healthy (a restart, a deploy), or raise --max-retries.`;
  return {
    kind: 'failure',
    request: last.request,
    durationMs: last.durationMs,
    error,
    transient: last.status,
    ...(attempts.length > 0 ? { attempts: [...attempts] } : {}),
  };
}

function told(exchange: Exchange, settings: ExchangeSettings): Exchange {
  settings.onExchange?.(exchange);
  return exchange;
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
