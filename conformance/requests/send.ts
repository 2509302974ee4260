// The one place where the suite makes an exchange with the target. Both clients (api-client.ts,
// raw-client.ts) build the request and know how to put it on the wire; everything that holds
// for every exchange of the run — not sending once the target has stopped answering, the time
// limit, counting answers, telling the run's listener — happens here, once.
import type { Exchange, ExchangeListener, RequestSummary } from './exchange.ts';
import { notSent, recordAnswer, stoppedReason } from './answer-watch.ts';

/** Puts one request on the wire and reads its answer, or says why there was none. */
export type Transmit = (request: RequestSummary, timeoutMs: number) => Promise<Exchange>;

export interface ExchangeSettings {
  /** The whole exchange's time limit, TLS handshake included. */
  timeoutMs: number;
  /** Told of the exchange, sent or not (the run's HAR is made of them). */
  onExchange?: ExchangeListener;
}

export async function makeExchange(
  request: RequestSummary,
  transmit: Transmit,
  settings: ExchangeSettings,
): Promise<Exchange> {
  const stopped = stoppedReason();
  const exchange = stopped ? notSent(request, stopped) : await transmit(request, settings.timeoutMs);
  if (!stopped) recordAnswer(exchange.kind === 'response', request.refusalExpected === true);
  settings.onExchange?.(exchange);
  return exchange;
}
