// The one place an answer leaves the server: every request of both listeners is written, logged
// (the access log) and recorded (the client journal) here, whichever site answered it, and so is
// every refusal written on a socket (a client error, a CONNECT over HTTP/1.1).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerSteps } from '../steps/server-steps.ts';
import { logAnswered, noAccessLog, type AccessLogSink } from '../http/access-log.ts';
import { apiError, type ApiErrorCode, type ApiResponse, type JsonAnswer } from '../http/errors.ts';
import type { RequestFacts } from '../http/request-facts.ts';
import { writeApiResponse, writeRawError, type Transport } from '../http/response-writer.ts';
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
  | { by: 'panel'; answer: PanelResponse }
  /** A behaviour's answer to a tenant API request (behaviours/): its error, or none (cut). */
  | { by: 'behaviour'; answer: JsonAnswer | 'cut' };

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
  const { req, res, transport } = exchange;
  if (reply.by === 'behaviour') {
    // A cut was made by the behaviour stage; status 0 says no answer was written.
    if (reply.answer !== 'cut') writeApiResponse(res, reply.answer, transport);
    record(outlet, exchange, reply.answer === 'cut' ? { status: 0 } : reply.answer, true);
    return;
  }
  if (reply.by === 'step') outlet.steps.writeResponse(res, reply.answer, transport);
  else if (reply.by === 'json') writeApiResponse(res, reply.answer, transport);
  else if (reply.by === 'panel') writePanelResponse(res, reply.answer, req.method);
  else res.destroy();
  const written: Written = reply.by === 'panel' ? { status: reply.answer.status } : reply.answer;
  record(outlet, exchange, written, reply.by === 'step');
}

/**
 * Refuses on the socket what Node hands over without a response to write to: a client error (no
 * request at all) or a CONNECT over HTTP/1.1 (`request`: the request and its facts). The answer
 * is the JSON error `writeApiResponse` would write, and the connection is closed after it.
 */
export function refuseOnSocket(
  outlet: Outlet,
  socket: Duplex,
  refusal: {
    code: ApiErrorCode;
    transport: Transport;
    request?: { req: IncomingMessage; facts: RequestFacts };
  },
): void {
  // Already answered or gone: Node reports a client error again for each later chunk of a request
  // it refused (a header section too large), and nothing written is nothing to log.
  if (!socket.writable) return;
  const { code, transport, request } = refusal;
  const started = outlet.log === noAccessLog ? 0 : performance.now();
  writeRawError(socket, code, transport);
  const written: Written = apiError(code);
  if (request) record(outlet, { ...request, transport, started }, written, true);
  else logAnswered(outlet.log, { response: written, started, transport });
}

/** Logs an answer, and records it in the journal when it is one the API's clients were given. */
function record(outlet: Outlet, exchange: Omit<Exchange, 'res'>, written: Written, byTheApi: boolean): void {
  const { req, facts, transport, started } = exchange;
  logAnswered(outlet.log, { req, response: written, started, transport, facts });
  const { journal } = outlet;
  if (!journal) return;
  if (transport === 'http') journal.recordPlain(req, facts, written);
  else if (byTheApi) journal.recordApi(req, facts, written);
}

/** What the log and the journal keep of an answer (status 0: none was written). */
type Written = { status: number; errorCode?: string | undefined; headers?: Record<string, string> };
