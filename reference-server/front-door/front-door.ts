// The front door: everything both listeners receive comes in here — requests, CONNECT requests and
// client errors — and every answer leaves through `respond.ts`, which writes, logs and journals it.
// A request's address is decided once (addressing/address.ts: which site, and whether it was
// misdirected); a misdirected request is answered 421 here, whatever site it names, and any other
// is answered by its site: a tenant API's pipeline, a panel, the admin API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestFacts } from '../addressing/address.ts';
import type { BehaviourTable } from '../behaviours/behaviour-table.ts';
import { handleApiRequest, type PipelineContext } from '../api/request-pipeline.ts';
import { isHttp2Response } from '../http/http2-answer.ts';
import { apiError, type ApiResponse } from '../http/errors.ts';
import type { RequestFacts } from '../http/request-facts.ts';
import type { Transport } from '../http/response-writer.ts';
import type { ListenerHandlers, SecureListenerHandlers } from '../listeners/secure-listener.ts';
import { clientErrorCode } from './client-errors.ts';
import { answerByBehaviour } from './behaviour-stage.ts';
import { continueAllowed } from './expect-continue.ts';
import { exchangeOf, refuseOnSocket, respond, type Outlet } from './respond.ts';
import { serveSite, type SiteContexts } from './sites.ts';

export interface FrontDoorContext extends Omit<PipelineContext, 'steps'>, Outlet {
  sites: SiteContexts;
  /** What a client's tests added (behaviours/): a stage after the API's pipeline. */
  behaviours: BehaviourTable;
}

/** What the listeners hand everything to (listeners/secure-listener.ts, listeners/plain-http.ts). */
export interface FrontDoor {
  /** The HTTPS listener's requests, CONNECT requests and client errors. */
  secure: Omit<SecureListenerHandlers, 'secureConnection'>;
  /** The plain-HTTP listener's, every one refused (spec §5 Scheme 4). */
  plain: ListenerHandlers;
}

export function openFrontDoor(context: FrontDoorContext): FrontDoor {
  const serve = (req: IncomingMessage, res: ServerResponse, facts: RequestFacts): void => {
    const exchange = exchangeOf(context, req, res, facts, 'https');
    const { site, misdirected } = facts.address;
    // RFC 9110 §7.4, before anything else: a `Host` naming another port, a host this server does
    // not serve, or a connection opened (TLS SNI) for another host. One answer for every site; the
    // journal, which keeps what the API's clients were answered, keeps it unless a panel or the
    // admin API was named on a port of theirs.
    if (misdirected !== undefined) {
      const ofTheApi = misdirected === 'port' || (site.kind !== 'panel' && site.kind !== 'admin');
      respond(context, exchange, { by: ofTheApi ? 'step' : 'json', answer: apiError('misdirected_request') });
    } else if (site.kind === 'panel' || site.kind === 'admin')
      void serveSite(context, exchange, site, context.sites);
    else {
      const answer = apiAnswer(req, context, facts);
      const { behaviours } = context;
      const taken =
        behaviours.size === 0 ? undefined : behaviours.take(facts, req.method ?? '', req.url ?? '/');
      if (taken) answerByBehaviour(context, exchange, answer, taken);
      else respond(context, exchange, { by: 'step', answer });
    }
  };
  const clientError =
    (transport: Transport) =>
    (error: NodeJS.ErrnoException, socket: Duplex): void => {
      const code = clientErrorCode(error, transport);
      if (code === undefined) socket.destroy();
      else refuseOnSocket(context, socket, { code, transport });
    };
  return {
    secure: {
      request: (req, res) => serve(req, res, requestFacts(req, context)),
      checkContinue: (req, res) => {
        const facts = requestFacts(req, context);
        if (continueAllowed(req, facts, context, context.sites)) res.writeContinue();
        // Answered without the body: a body the client may still send is not read, so the connection ends.
        else res.shouldKeepAlive = false;
        serve(req, res, facts);
      },
      // Not a method of this API (RFC 9110 §9.3.6: a proxy's), on either protocol.
      connect: (req, socketOrResponse) => {
        const facts = requestFacts(req, context);
        const answer = apiError('method_not_allowed');
        if (isHttp2Response(socketOrResponse)) {
          const res = socketOrResponse as unknown as ServerResponse;
          respond(context, exchangeOf(context, req, res, facts, 'https'), { by: 'step', answer });
        } else
          refuseOnSocket(context, socketOrResponse as Duplex, {
            code: 'method_not_allowed',
            transport: 'https',
            request: { req, facts },
          });
      },
      clientError: clientError('https'),
    },
    plain: {
      request: (req, res) => {
        const exchange = exchangeOf(context, req, res, requestFacts(req, context), 'http');
        res.shouldKeepAlive = false;
        respond(context, exchange, { by: 'json', answer: context.steps.plainHttpAnswer(req, context) });
      },
      connect: (req, socket) =>
        refuseOnSocket(context, socket as Duplex, {
          code: 'https_required',
          transport: 'http',
          request: { req, facts: requestFacts(req, context) },
        }),
      clientError: clientError('http'),
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
