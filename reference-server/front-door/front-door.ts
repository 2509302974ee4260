// The front door: every request of both listeners comes in here. Its address is decided once
// (addressing/address.ts: which site, and whether it was misdirected), then the site it names
// answers — a tenant API's pipeline, a panel, the admin API — and the answer leaves through
// `respond` (respond.ts), which writes, logs and journals every answer alike.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestFacts } from '../addressing/address.ts';
import { handleApiRequest, type PipelineContext } from '../api/request-pipeline.ts';
import { apiError, type ApiResponse } from '../http/errors.ts';
import type { RequestFacts } from '../http/request-facts.ts';
import { continueAllowed } from './expect-continue.ts';
import { exchangeOf, respond, type Outlet } from './respond.ts';
import { serveSite, type SiteContexts } from './sites.ts';

export interface FrontDoorContext extends PipelineContext, Outlet {
  sites: SiteContexts;
}

/** What the listeners hand their requests to (listeners/secure-listener.ts, listeners/plain-http.ts). */
export interface FrontDoor {
  /** A request of the HTTPS listener. */
  request: (req: IncomingMessage, res: ServerResponse) => void;
  /** A request of the HTTPS listener that waits for `100 Continue` before sending its body. */
  checkContinue: (req: IncomingMessage, res: ServerResponse) => void;
  /** A CONNECT request over HTTP/2, which hands over the stream's response instead of a socket. */
  connectOverHttp2: (res: ServerResponse) => void;
  /** A request of the plain-HTTP listener. */
  plainRequest: (req: IncomingMessage, res: ServerResponse) => void;
}

export function openFrontDoor(context: FrontDoorContext): FrontDoor {
  const serve = (req: IncomingMessage, res: ServerResponse, facts: RequestFacts): void => {
    const exchange = exchangeOf(context, req, res, facts, 'https');
    const { site, misdirected } = facts.address;
    // RFC 9110 §7.4, like a host this listener does not serve: the request was meant for another port.
    if (misdirected === 'port')
      respond(context, exchange, { by: 'step', answer: apiError('misdirected_request') });
    else if (site.kind === 'panel' || site.kind === 'admin')
      void serveSite(context, exchange, site, context.sites);
    else respond(context, exchange, { by: 'step', answer: apiAnswer(req, context, facts) });
  };
  return {
    request: (req, res) => serve(req, res, requestFacts(req, context)),
    checkContinue: (req, res) => {
      const facts = requestFacts(req, context);
      if (continueAllowed(req, facts, context, context.sites)) res.writeContinue();
      // Answered without the body: a body the client may still send is not read, so the connection ends.
      else res.shouldKeepAlive = false;
      serve(req, res, facts);
    },
    connectOverHttp2: (res) => context.steps.writeResponse(res, apiError('method_not_allowed'), 'https'),
    plainRequest: (req, res) => {
      const exchange = exchangeOf(context, req, res, requestFacts(req, context), 'http');
      res.shouldKeepAlive = false;
      respond(context, exchange, { by: 'json', answer: context.steps.plainHttpAnswer(req, context) });
    },
  };
}

function apiAnswer(req: IncomingMessage, context: PipelineContext, facts: RequestFacts): ApiResponse {
  try {
    return handleApiRequest(req, context, facts);
  } catch {
    // A defect of ours must still get a JSON answer, never a stack trace or a hung socket.
    return apiError('internal_error');
  }
}
