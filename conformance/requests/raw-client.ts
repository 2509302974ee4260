// Requests that Playwright's request API cannot express: two Authorization headers, a Host
// header that differs from the TLS SNI, a key in a URL sent without leaving it in Playwright's
// step log, or plain HTTP. Built on node:http/https with the target's host map and CA;
// certificate verification stays on.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { SecureContext } from 'node:tls';
import type { Duplex } from 'node:stream';
import {
  elapsedSince,
  readAnswer,
  startRequest,
  type Exchange,
  type ExchangeListener,
  type RequestSummary,
} from './exchange.ts';
import { lookupWith, type HostMap } from './host-map.ts';
import { runSettings } from '../settings.ts';
import { makeExchange, type Transmit } from './send.ts';
import { openH2Session, transmitH2, type H2Connection } from './h2-transmit.ts';
import { constants as http2Constants, type ClientHttp2Session } from 'node:http2';
import { alpnAgreesToH2, type Protocol } from './protocols.ts';
import { secureContextFor, trustedCas } from './ca-trust.ts';
import { readUpgradedAnswer } from './h2c-upgrade.ts';
import { nextUserAgent } from './user-agents.ts';

export interface RawRequest {
  url: string;
  method?: string;
  /** Sent in this order, repeats included. */
  headers?: readonly (readonly [string, string])[];
  body?: string;
  /** The Host header (over HTTP/2 the `:authority`); defaults to the URL's host. */
  hostHeader?: string;
  /** HTTP/2 only: a `host` field sent beside the `:authority` (RFC 9113 §8.3.1). */
  hostField?: string;
  /** HTTP/2 only: the header block in this many frames, HEADERS then CONTINUATION (default 1). */
  headerFrames?: number;
  /** Plain HTTP only: HTTP/2 without TLS, by prior knowledge (h2c, RFC 9113 §3.3). */
  priorKnowledgeH2?: boolean;
  note?: string;
  refusalExpected?: boolean;
}

export interface RawClientOptions {
  hosts: HostMap;
  caFile?: string;
  timeoutMs?: number;
  onExchange?: ExchangeListener;
  /** HTTPS requests over HTTP/2 (plain HTTP stays HTTP/1.1); default HTTP/1.1. */
  protocol?: Protocol;
}

/**
 * What an HTTP/1.1 connection offers by ALPN: nothing (as Playwright's request context and
 * Node's https do), or `http/1.1` alone (as `curl --http1.1`, Python's requests and Go's net/http
 * without HTTP/2 do). A deployment may route the two differently; the suite checks both.
 */
export type Http1Alpn = 'none' | 'http/1.1';

/** How a request's record names the connection kind it went over. */
export const ALPN_HTTP11_NOTE = 'TLS offering ALPN http/1.1';

const MAX_BODY_BYTES = 256 * 1024;

/**
 * What a request's note says when it was sent in a way only the suite's own frames express: the
 * reports warn that its curl line sends something else (report/curl.ts).
 */
export const SPLIT_HEADER_BLOCK = 'HEADERS, CONTINUATION';
export const ON_A_SHARED_CONNECTION = 'on a connection shared with the requests before it';

/** Connections a series of requests on one connection is tried on when a front drains them. */
const DRAINED_CONNECTIONS_TRIED = 3;

export class RawClient {
  readonly #lookup: ReturnType<typeof lookupWith>;
  /** Made once: passing `ca` to every request would parse the CAs again for each one. */
  readonly #secureContext: SecureContext | undefined;
  readonly #timeoutMs: number;
  readonly #onExchange: ExchangeListener | undefined;
  #protocol: Protocol;
  #http1Alpn: Http1Alpn = 'none';

  /** With `shared`, its host map and CA are used instead of reading them again. */
  constructor(options: RawClientOptions, shared?: RawClient) {
    this.#lookup = shared ? shared.#lookup : lookupWith(options.hosts);
    // The target's CA is trusted in addition to the system's, never instead of it.
    this.#secureContext = shared ? shared.#secureContext : secureContextOf(trustedCas(options.caFile));
    this.#timeoutMs = options.timeoutMs ?? runSettings().requestTimeoutMs;
    this.#onExchange = options.onExchange;
    this.#protocol = shared ? shared.#protocol : (options.protocol ?? 'h1');
    if (shared) this.#http1Alpn = shared.#http1Alpn;
  }

  get http1Alpn(): Http1Alpn {
    return this.#http1Alpn;
  }

  /** The same client, telling the same listener, its HTTPS connections over HTTP/1.1 offering `alpn`. */
  withHttp1Alpn(alpn: Http1Alpn): RawClient {
    const copy = new RawClient({ hosts: {}, timeoutMs: this.#timeoutMs, onExchange: this.#onExchange }, this);
    copy.#http1Alpn = alpn;
    return copy;
  }

  get protocol(): Protocol {
    return this.#protocol;
  }

  /** The same client (its CA read once), telling `onExchange` of every exchange it completes. */
  listening(onExchange: ExchangeListener): RawClient {
    return new RawClient({ hosts: {}, timeoutMs: this.#timeoutMs, onExchange }, this);
  }

  /** The same client, telling the same listener, over `protocol`. */
  withProtocol(protocol: Protocol): RawClient {
    const copy = new RawClient({ hosts: {}, timeoutMs: this.#timeoutMs, onExchange: this.#onExchange }, this);
    copy.#protocol = protocol;
    return copy;
  }

  send(raw: RawRequest): Promise<Exchange> {
    return this.#exchange(raw, undefined);
  }

  /** @param session over HTTP/2, the session to send on instead of a connection of its own. */
  #exchange(raw: RawRequest, session: ClientHttp2Session | undefined): Promise<Exchange> {
    const url = new URL(raw.url);
    // Every request carries what spec §5 Scheme 3 asks of clients, as ApiClient's do: a target may
    // refuse a request without it before it looks at anything a rule probes.
    const given = raw.headers ?? [];
    const contentType: [string, string][] = given.some(([name]) => name.toLowerCase() === 'content-type')
      ? []
      : [['Content-Type', 'application/json']];
    const h2 =
      (this.#protocol === 'h2' && url.protocol === 'https:') ||
      (raw.priorKnowledgeH2 === true && url.protocol === 'http:');
    // A common client's User-Agent (user-agents.ts), unless the rule sends its own.
    const userAgent: [string, string][] = given.some(([name]) => name.toLowerCase() === 'user-agent')
      ? []
      : [['User-Agent', nextUserAgent()]];
    const headers: [string, string][] = [
      ['Host', raw.hostHeader ?? url.host],
      // Over HTTP/2 a second Host is a `host` field beside the :authority (h2-transmit.ts).
      ...(raw.hostField === undefined ? [] : [['host', raw.hostField] as [string, string]]),
      ...given.map(([name, value]): [string, string] => [name, value]),
      ...contentType,
      ...userAgent,
      ...(h2 ? [] : fieldsNodeAdds(given, raw.body)),
    ];
    const frames = raw.headerFrames ?? 1;
    const alpnHttp11 = !h2 && url.protocol === 'https:' && this.#http1Alpn === 'http/1.1';
    const note = [
      raw.note,
      frames > 1 ? `header block in ${frames} frames (${SPLIT_HEADER_BLOCK})` : undefined,
      alpnHttp11 ? ALPN_HTTP11_NOTE : undefined,
    ];
    const summary = startRequest(raw.method ?? 'GET', raw.url, headers, {
      body: raw.body,
      note: note.filter(Boolean).join('; ') || undefined,
      refusalExpected: raw.refusalExpected,
      protocol: h2 ? 'h2' : 'h1',
    });
    const transmit: Transmit = h2
      ? (sent, timeoutMs) =>
          transmitH2(url, sent, raw.body, timeoutMs, this.#h2Connection(), MAX_BODY_BYTES, {
            headerFrames: frames,
            session,
          })
      : (sent, timeoutMs) => this.#sendH1(url, raw.body, sent, timeoutMs);
    return makeExchange(summary, transmit, {
      timeoutMs: this.#timeoutMs,
      onExchange: this.#onExchange,
    });
  }

  /**
   * HTTP/2 only: `requests` one after another on one connection, opened (TLS SNI) for the first
   * one's URL host — as a client that coalesces connections sends them (RFC 9113 §9.1.1). Each
   * request's `:authority` is its own URL's host (or `hostHeader`).
   */
  async sendOverOneConnection(requests: readonly RawRequest[]): Promise<Exchange[]> {
    const [first] = requests;
    if (!first || this.#protocol !== 'h2') throw new Error('sendOverOneConnection: HTTP/2 requests only');
    // A connection a front drained (GOAWAY NO_ERROR) before the series was answered says nothing of
    // what one connection carries: the series starts over on a new one, as any other request of
    // the run is sent again after a graceful GOAWAY (decision 0022). Bounded: after the last
    // connection the series is judged as it came.
    for (let connection = 1; ; connection += 1) {
      const { exchanges, drained } = await this.#overOneConnection(first, requests);
      if (!drained || connection >= DRAINED_CONNECTIONS_TRIED) return exchanges;
    }
  }

  async #overOneConnection(
    first: RawRequest,
    requests: readonly RawRequest[],
  ): Promise<{ exchanges: Exchange[]; drained: boolean }> {
    const session = openH2Session(new URL(first.url), this.#h2Connection());
    // A failed connection is every request's failure, told by each exchange: not thrown here.
    session.on('error', () => {});
    let drained = false;
    session.on('goaway', (code: number) => {
      if (code === http2Constants.NGHTTP2_NO_ERROR) drained = true;
    });
    try {
      const exchanges: Exchange[] = [];
      for (const [index, request] of requests.entries()) {
        const note =
          index === 0 ? request.note : [request.note, ON_A_SHARED_CONNECTION].filter(Boolean).join('; ');
        const exchange = await this.#exchange({ ...request, note }, session);
        exchanges.push(exchange);
        if (drained && exchange.kind === 'failure') return { exchanges, drained };
      }
      return { exchanges, drained: false };
    } finally {
      session.destroy();
    }
  }

  /**
   * Whether `url`'s host agrees to HTTP/2 by ALPN: true or false from a completed handshake,
   * undefined when the handshake failed (nothing is known).
   */
  agreesToHttp2(url: string): Promise<boolean | undefined> {
    return alpnAgreesToH2(url, {
      lookup: this.#lookup,
      secureContext: this.#secureContext,
      timeoutMs: this.#timeoutMs,
    });
  }

  #h2Connection(): H2Connection {
    return { lookup: this.#lookup, secureContext: this.#secureContext };
  }

  #sendH1(url: URL, body: string | undefined, summary: RequestSummary, timeoutMs: number): Promise<Exchange> {
    const options = {
      host: url.hostname,
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: summary.method,
      headers: summary.headers.flat(),
      setHost: false,
      lookup: this.#lookup,
      agent: false as const,
    };
    const failed = (error: NodeJS.ErrnoException): Exchange => ({
      kind: 'failure',
      request: summary,
      durationMs: elapsedSince(summary),
      error: describe(error),
    });
    return new Promise<Exchange>((settle) => {
      // The whole exchange is bounded, not only each silence: a trickling answer ends too.
      const deadline = setTimeout(
        () => request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
        timeoutMs,
      );
      const resolve = (exchange: Exchange): void => {
        clearTimeout(deadline);
        settle(exchange);
      };
      const answered = (response: IncomingMessage, bodyText: string): Exchange => ({
        kind: 'response',
        request: summary,
        durationMs: elapsedSince(summary),
        status: response.statusCode ?? 0,
        headers: joinHeaders(response.headersDistinct),
        bodyText,
      });
      const onResponse = (response: IncomingMessage): void => {
        readAnswer(response, MAX_BODY_BYTES, (bodyText) => resolve(answered(response, bodyText)));
        response.on('error', (error) => resolve(failed(error)));
      };
      const request =
        url.protocol === 'https:'
          ? httpsRequest(
              {
                ...options,
                ...tlsOptions(url, this.#secureContext),
                ...(this.#http1Alpn === 'http/1.1' ? { ALPNProtocols: ['http/1.1'] } : {}),
              },
              onResponse,
            )
          : httpRequest(options, onResponse);
      request.on('error', (error) => resolve(failed(error)));
      // A server that switches protocols has not served the request yet: to h2c, its answer
      // comes over HTTP/2 on the switched connection (h2c-upgrade.ts), and that is judged, the
      // switch told beside it. A switch to anything else is judged as the `101` it is.
      request.on('upgrade', (response: IncomingMessage, socket: Duplex, head: Buffer) => {
        const upgrade = (response.headers.upgrade ?? '').toLowerCase();
        if (upgrade !== 'h2c') {
          socket.destroy();
          resolve(answered(response, ''));
          return;
        }
        const switched = `${response.statusCode ?? 101} Switching Protocols (Upgrade: h2c)`;
        void readUpgradedAnswer(socket, head, url, summary.method, timeoutMs, MAX_BODY_BYTES).then((answer) =>
          resolve(
            'error' in answer
              ? {
                  kind: 'failure',
                  request: summary,
                  durationMs: elapsedSince(summary),
                  error: `switched to h2c, then no answer over HTTP/2: ${answer.error}`,
                  switchedProtocols: switched,
                }
              : {
                  kind: 'response',
                  request: summary,
                  durationMs: elapsedSince(summary),
                  ...answer,
                  switchedProtocols: switched,
                },
          ),
        );
      });
      request.end(body);
    });
  }
}

/**
 * Over HTTP/1.1, what Node would add to the request by itself, set here so that it is recorded:
 * `Connection: close` (a connection of its own, `agent: false`) and the body's `Content-Length`.
 */
function fieldsNodeAdds(
  given: readonly (readonly [string, string])[],
  body: string | undefined,
): [string, string][] {
  const named = (name: string): boolean => given.some(([existing]) => existing.toLowerCase() === name);
  const fields: [string, string][] = [];
  if (body !== undefined && body !== '' && !named('content-length') && !named('transfer-encoding'))
    fields.push(['Content-Length', String(Buffer.byteLength(body))]);
  if (!named('connection')) fields.push(['Connection', 'close']);
  return fields;
}

function secureContextOf(ca: string[] | undefined): SecureContext | undefined {
  return ca === undefined ? undefined : secureContextFor(ca);
}

/**
 * https.request hands its options to tls.connect, which takes a ready `secureContext` (its types
 * list only the options it builds one from). Verification stays on: `rejectUnauthorized` default.
 */
function tlsOptions(url: URL, secureContext: SecureContext | undefined): RequestOptions {
  return { servername: url.hostname, ...(secureContext ? ({ secureContext } as RequestOptions) : {}) };
}

function joinHeaders(headers: NodeJS.Dict<string[]>): Record<string, string> {
  const joined: Record<string, string> = {};
  for (const [name, values] of Object.entries(headers)) if (values) joined[name] = values.join(', ');
  return joined;
}

function describe(error: NodeJS.ErrnoException): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
