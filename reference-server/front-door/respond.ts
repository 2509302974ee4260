// The one place an answer leaves the server: every request of both listeners is written, logged
// (the access log) and recorded (the client journal) here, whichever site answered it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerSteps } from '../api/request-pipeline.ts';
import { logAnswered, noAccessLog, type AccessLogSink } from '../http/access-log.ts';
import type { ApiResponse, JsonAnswer } from '../http/errors.ts';
import type { RequestFacts } from '../http/request-facts.ts';
import { writeApiResponse, type Transport } from '../http/response-writer.ts';
import type { Journal } from '../journal/journal.ts';
import { writePanelResponse, type PanelResponse } from '../panel/panel-response.ts';

/** Where answers go: the writer step, the access log, the client journal (undefined: off). */
export interface Outlet {
  steps: ServerSteps;
  log: AccessLogSink;
  journal: Journal | undefined;
}

/** One request on its way through the server. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  facts: RequestFacts;
  transport: Transport;
  /** `performance.now()` when it arrived; 0 with the access log off, its only reader. */
  started: number;
}

/**
 * An answer and how it is written: `step`, an answer of the tenant API, through the `writeResponse`
 * step (which a caller may replace); `json`, the admin API's, a site's refusal and plain HTTP's, as
 * they are; `panel`, a panel page; `cut`, an answer that can no longer be written (a site failed
 * after sending its head): the connection is cut, and the answer logged.
 */
export type Reply =
  | { by: 'step'; answer: ApiResponse }
  | { by: 'json' | 'cut'; answer: JsonAnswer }
  | { by: 'panel'; answer: PanelResponse };

export function exchangeOf(
  outlet: Outlet,
  req: IncomingMessage,
  res: ServerResponse,
  facts: RequestFacts,
  transport: Transport,
): Exchange {
  // Only the access log reads the time (a clock read per request otherwise).
  return { req, res, facts, transport, started: outlet.log === noAccessLog ? 0 : performance.now() };
}

/**
 * Writes the answer, logs it, and records it in the client journal, which keeps what the API's
 * clients were answered: every plain-HTTP answer and every answer of the tenant API's writer (the
 * 421 of a request for another port included), never a panel or admin API answer.
 */
export function respond(outlet: Outlet, exchange: Exchange, reply: Reply): void {
  const { req, res, facts, transport } = exchange;
  if (reply.by === 'step') outlet.steps.writeResponse(res, reply.answer, transport);
  else if (reply.by === 'json') writeApiResponse(res, reply.answer, transport);
  else if (reply.by === 'panel') writePanelResponse(res, reply.answer, req.method);
  else res.destroy();
  const written: Written = reply.by === 'panel' ? { status: reply.answer.status } : reply.answer;
  logAnswered(outlet.log, { req, response: written, started: exchange.started, transport, facts });
  const { journal } = outlet;
  if (!journal) return;
  if (transport === 'http') journal.recordPlain(req, facts, written);
  else if (reply.by === 'step') journal.recordApi(req, facts, written);
}

/** What the log and the journal keep of an answer. */
type Written = { status: number; errorCode?: string | undefined };
