// The behaviour stage: after the tenant API's pipeline has answered a request (and so learnt its
// tenant, environment and key), a behaviour a client's test added (behaviours/) may answer it
// instead — an error, the same answer after a delay, no answer at all (the connection reset, an
// HTTP/2 GOAWAY or RST_STREAM) — and every answer still leaves through `respond`, which journals
// it with the behaviour's name. The pipeline knows nothing of behaviours, nor they of its steps.
import { constants as http2Constants, type Http2ServerRequest } from 'node:http2';
import type { Socket } from 'node:net';
import type { BehaviourAction, TakenRequest } from '../behaviours/behaviour-table.ts';
import type { ApiResponse } from '../http/errors.ts';
import { overHttp2 } from '../http/field-lines.ts';
import { respond, type Exchange, type Outlet } from './respond.ts';

/** Answers a request a behaviour took: at once, or after its delay. */
export function answerByBehaviour(
  outlet: Outlet,
  exchange: Exchange,
  reference: ApiResponse,
  taken: TakenRequest,
): void {
  const { action } = taken;
  exchange.facts.behaviour = { name: taken.name };
  if (action === undefined) {
    respond(outlet, exchange, { by: 'step', answer: reference });
    return;
  }
  const act = (): void => actNow(outlet, exchange, reference, action);
  if (action.delayMs === 0) act();
  // Unreferenced: a delayed answer never keeps a process alive whose server has closed.
  else setTimeout(act, action.delayMs).unref();
}

function actNow(outlet: Outlet, exchange: Exchange, reference: ApiResponse, action: BehaviourAction): void {
  if (action.kind === 'answer') {
    // A client that gave up while the answer waited is still journaled: it sent the request.
    if (action.answer === undefined) respond(outlet, exchange, { by: 'step', answer: reference });
    else respond(outlet, exchange, { by: 'behaviour', answer: action.answer });
    return;
  }
  const { facts } = exchange;
  facts.behaviour = { ...facts.behaviour, name: facts.behaviour?.name ?? '', cut: action.cut };
  if (action.refused) facts.behaviour.refused = true;
  cut(exchange, action);
  respond(outlet, exchange, { by: 'behaviour', answer: 'cut' });
}

/** Ends the request without an answer, as the behaviour says, on either protocol. */
function cut(exchange: Exchange, action: Extract<BehaviourAction, { kind: 'cut' }>): void {
  const { req } = exchange;
  if (!overHttp2(req)) {
    // HTTP/1.1 has no GOAWAY or stream reset: the nearest is a connection closed without an answer.
    resetSocket(req.socket, action.cut === 'reset');
    return;
  }
  const { stream } = req as unknown as Http2ServerRequest;
  const { session } = stream;
  if (action.cut === 'rst-stream') {
    stream.close(
      action.refused ? http2Constants.NGHTTP2_REFUSED_STREAM : http2Constants.NGHTTP2_INTERNAL_ERROR,
    );
    return;
  }
  if (action.cut === 'goaway' && session) {
    // RFC 9113 §6.8: a last stream id below the request's says it was not processed.
    const id = stream.id ?? 0;
    session.goaway(http2Constants.NGHTTP2_NO_ERROR, action.refused ? Math.max(0, id - 2) : id);
    // The stream ends unanswered, and the connection once its frames are written.
    stream.close(
      action.refused ? http2Constants.NGHTTP2_REFUSED_STREAM : http2Constants.NGHTTP2_INTERNAL_ERROR,
    );
    session.close();
    return;
  }
  session?.destroy();
}

/** A TCP reset where the socket allows it (a plain TCP handle), else a close without answer. */
function resetSocket(socket: Socket, reset: boolean): void {
  if (reset) {
    try {
      socket.resetAndDestroy();
      return;
    } catch {
      // A TLS socket's handle is not a TCP one: closing it is the reset its client sees.
    }
  }
  socket.destroy();
}
