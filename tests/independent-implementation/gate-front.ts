// A front that may answer a request itself before anything behind it sees the request — a rate
// limiter, a load balancer whose pod is restarting — and otherwise passes it on to the
// independent implementation. Unlike host-front.ts it is transparent to tenant addressing: the
// upstream connection is opened for the SNI the client sent and the Host header goes on
// unchanged, so the implementation's own SNI/Host check (421) still holds behind it. It
// terminates TLS with a certificate of its own for `*.api.{domain}` and `*.sandbox.api.{domain}`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Agent, createServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { makeCertificates } from './certificates.ts';
import { listenOnLoopback } from './loopback-listener.ts';
import { endToEnd, forward } from './forwarding.ts';

/** An answer the front gives itself. */
export interface GateAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** What the front does with one request: answer it, or pass it on with these headers added to the answer. */
export type GateDecision =
  { answer: GateAnswer } | { pass: true; answerHeaders?: Readonly<Record<string, string>> };

/** Decides for each request as it arrives, before any of it is forwarded. */
export type Gate = (request: IncomingMessage) => GateDecision;

export interface GateFront {
  port: number;
  /** PEM of the CA that signed the front's certificate. */
  caPem: string;
  close(): Promise<void>;
}

export interface GateFrontOptions {
  upstreamPort: number;
  /** PEM of the CA the upstream's certificate chains to. */
  upstreamCa: string;
  gate: Gate;
  domain?: string;
  /** Closes a client's keep-alive connection after this long idle (Node's default: 5 s). */
  idleTimeoutMs?: number;
}

export async function startGateFront(options: GateFrontOptions): Promise<GateFront> {
  const domain = options.domain ?? 'localhost';
  const certificates = await makeCertificates('Gate Front Test CA', [
    `*.api.${domain}`,
    `*.sandbox.api.${domain}`,
  ]);
  // Upstream connections are kept open: a front that shakes hands anew for every request would
  // cost the machine more than the suite it serves.
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const upstream = { port: options.upstreamPort, ca: options.upstreamCa, agent };

  const handle = (incoming: IncomingMessage, response: ServerResponse): void => {
    const decision = options.gate(incoming);
    if ('answer' in decision) {
      const { status, headers, body } = decision.answer;
      incoming.resume();
      response.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }).end(body);
      return;
    }
    // The client's SNI, or (a client that sent none) the Host header's name, as the upstream's SNI.
    const sni = (incoming.socket as TLSSocket).servername;
    const servername =
      typeof sni === 'string' && sni !== '' ? sni : (incoming.headers.host ?? '').replace(/:\d*$/, '');
    forward(incoming, response, upstream, {
      servername,
      headers: endToEnd(incoming.rawHeaders),
      answerHeaders: decision.answerHeaders,
    });
  };

  const server = createServer({ key: certificates.key, cert: certificates.cert }, handle);
  if (options.idleTimeoutMs !== undefined) server.keepAliveTimeout = options.idleTimeoutMs;
  const { port, close } = await listenOnLoopback(server, () => agent.destroy());
  return { port, caPem: certificates.caPem, close };
}
