// One request over HTTP/2, on a connection of its own unless given a session: the `:authority` is
// the request's Host (so a rule that names another host than the TLS SNI does so the way HTTP/2
// does), every other field as the rule set it, lower-cased as HTTP/2 requires. What Node's client
// will not send (a name twice, a block over several frames) is written by hand. Certificate
// verification stays on.
import {
  connect,
  constants,
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type IncomingHttpHeaders,
} from 'node:http2';
import { connect as tlsConnect, type SecureContext } from 'node:tls';
import { headerBlock, headersFrames } from './h2-frames.ts';
import { HeaderBlockSwap } from './h2-header-block-swap.ts';
import {
  elapsedSince,
  readAnswer,
  type Exchange,
  type RequestSummary,
  type TransientSignal,
} from './exchange.ts';
import type { lookupWith } from './host-map.ts';

export interface H2Connection {
  lookup: ReturnType<typeof lookupWith>;
  secureContext: SecureContext | undefined;
}

/** Fields HTTP/2 forbids (RFC 9113 §8.2.2); the first `Host` is sent as `:authority`. */
const NOT_SENT_AS_FIELDS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

export interface H2Options {
  /** The header block in this many frames: HEADERS, then CONTINUATION frames (default 1). */
  headerFrames?: number;
  /** A session to send on instead of a connection of the request's own (left open). */
  session?: ClientHttp2Session;
}

/**
 * The request's header block as HTTP/2 sends it, in order: the pseudo-header fields, then every
 * field with its name in lower case, repeats included. The first `Host` is the `:authority`
 * (RFC 9113 §8.3.1); a further `Host` is sent as a `host` field beside it.
 */
export function h2Fields(url: URL, summary: RequestSummary): [string, string][] {
  const fields: [string, string][] = [];
  let authority: string | undefined;
  for (const [name, value] of summary.headers) {
    const lower = name.toLowerCase();
    if (lower === 'host' && authority === undefined) authority = value;
    else if (!NOT_SENT_AS_FIELDS.has(lower)) fields.push([lower, value]);
  }
  return [
    [constants.HTTP2_HEADER_METHOD, summary.method],
    [constants.HTTP2_HEADER_PATH, `${url.pathname}${url.search}`],
    [constants.HTTP2_HEADER_SCHEME, url.protocol === 'http:' ? 'http' : 'https'],
    [constants.HTTP2_HEADER_AUTHORITY, authority ?? url.host],
    ...fields,
  ];
}

/**
 * Whether Node's client can send these fields itself: it sends each name once, and a header block
 * in one frame. Otherwise the block is written by hand (h2-header-block-swap.ts).
 */
function nodeCanSend(fields: readonly (readonly [string, string])[], options: H2Options): boolean {
  const names = fields.map(([name]) => name);
  return new Set(names).size === names.length && (options.headerFrames ?? 1) <= 1;
}

/** Opens an HTTP/2 session to `url`'s origin, its TLS SNI the URL's host. */
export function openH2Session(
  url: URL,
  connection: H2Connection,
  swap?: (endStream: boolean) => Buffer[],
): ClientHttp2Session {
  const tlsOptions = {
    servername: url.hostname,
    lookup: connection.lookup,
    ...(connection.secureContext ? { secureContext: connection.secureContext } : {}),
  };
  if (!swap) return connect(url.origin, tlsOptions);
  return connect(url.origin, {
    ...tlsOptions,
    createConnection: () =>
      new HeaderBlockSwap(
        tlsConnect({
          ...tlsOptions,
          host: url.hostname,
          port: Number(url.port || 443),
          ALPNProtocols: ['h2'],
        }),
        swap,
      ),
  });
}

export function transmitH2(
  url: URL,
  summary: RequestSummary,
  body: string | undefined,
  timeoutMs: number,
  connection: H2Connection,
  maxBodyBytes: number,
  options: H2Options = {},
): Promise<Exchange> {
  const fields = h2Fields(url, summary);
  const endStream = body === undefined || body === '';
  const byHand = !nodeCanSend(fields, options);
  // Node's client is given each name once; the hand-written block replaces what it sends.
  const nodeFields = Object.fromEntries(fields.filter(([name]) => !byHand || name.startsWith(':')));
  const swap = byHand
    ? (ended: boolean) => headersFrames(1, headerBlock(fields), ended, options.headerFrames ?? 1)
    : undefined;

  if (byHand && options.session)
    return Promise.resolve({
      kind: 'failure',
      request: summary,
      durationMs: 0,
      error: 'a header block written by hand needs a connection of its own (the suite sent nothing)',
    });
  return new Promise<Exchange>((settle) => {
    let settled = false;
    const finish = (exchange: Exchange): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (options.session) {
        // The shared session outlives this request: its listeners go with it.
        session.off('error', failed);
        session.off('goaway', onGoaway);
        stream?.close();
      } else session.destroy();
      settle(exchange);
    };
    // A GOAWAY the server sent on this request's own connection: a graceful one means "not
    // processed, send it again" (decision 0022); on a shared connection it is the rule's to judge.
    // On a shared connection a stream refused before any answer (REFUSED_STREAM: not processed)
    // is sent again on it only for a request the rule needs served (the one that opens the
    // connection); a refusal of a request the rule expects refused is the target's answer there.
    // A reset after the answer began is never "not processed": what came is judged.
    let goaway: number | undefined;
    // The answer's status once its headers came; 0 until then.
    let status = 0;
    const onGoaway = (code: number): void => {
      goaway ??= code;
    };
    const failed = (error: NodeJS.ErrnoException): void => {
      const retryable =
        status === 0 && (!options.session || (goaway === undefined && summary.refusalExpected !== true));
      const signal = retryable ? transientSignal(stream?.rstCode, goaway) : undefined;
      finish({
        kind: 'failure',
        request: summary,
        durationMs: elapsedSince(summary),
        error: error.code ? `${error.code}: ${error.message}` : error.message,
        ...(signal ? { signal } : {}),
      });
    };
    // The whole exchange is bounded, handshake included, as over HTTP/1.1.
    const deadline = setTimeout(
      () => failed(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
      timeoutMs,
    );
    const session: ClientHttp2Session = options.session ?? openH2Session(url, connection, swap);
    session.on('error', failed);
    session.on('goaway', onGoaway);
    let stream: ClientHttp2Stream | undefined;
    try {
      stream = session.request(nodeFields, { endStream });
    } catch (error) {
      // A shared session the server has closed (GOAWAY after a 421, say) takes no new stream:
      // that request was refused, and nothing was sent.
      failed(error as NodeJS.ErrnoException);
      return;
    }
    stream.on('error', failed);
    let headers: Record<string, string> = {};
    stream.on('response', (answer: IncomingHttpHeaders) => {
      status = Number(answer[constants.HTTP2_HEADER_STATUS] ?? 0);
      headers = joined(answer);
    });
    readAnswer(stream, maxBodyBytes, (bodyText) =>
      // A stream can end without any answer (the connection went away, or was never HTTP/2).
      status === 0
        ? failed(
            Object.assign(new Error('the stream ended without an answer'), { code: 'ERR_HTTP2_NO_ANSWER' }),
          )
        : finish({
            kind: 'response',
            request: summary,
            durationMs: elapsedSince(summary),
            status,
            headers,
            bodyText,
          }),
    );
    if (!endStream) stream.end(body);
  });
}

/**
 * What a stream that ended without an answer was told, when it means "not processed" (RFC 9113
 * §8.7, §6.8, §5.4.1): REFUSED_STREAM, a GOAWAY with NO_ERROR (a graceful shutdown: a stream above
 * its last-stream-id, or the connection closed before the answer), ENHANCE_YOUR_CALM. A reset with
 * PROTOCOL_ERROR (a malformed request) or any other code is the server's refusal: none.
 */
function transientSignal(
  rstCode: number | undefined,
  goaway: number | undefined,
): TransientSignal | undefined {
  if (rstCode === constants.NGHTTP2_PROTOCOL_ERROR) return undefined;
  if (goaway === constants.NGHTTP2_NO_ERROR) return 'GOAWAY NO_ERROR';
  if (goaway === constants.NGHTTP2_ENHANCE_YOUR_CALM) return 'GOAWAY ENHANCE_YOUR_CALM';
  if (goaway !== undefined) return undefined;
  if (rstCode === constants.NGHTTP2_REFUSED_STREAM) return 'RST_STREAM REFUSED_STREAM';
  if (rstCode === constants.NGHTTP2_ENHANCE_YOUR_CALM) return 'RST_STREAM ENHANCE_YOUR_CALM';
  return undefined;
}

/** The answer's fields as every exchange has them: lower-case names, repeats joined, no pseudo-headers. */
function joined(answer: IncomingHttpHeaders): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer)) {
    if (name.startsWith(':') || value === undefined) continue;
    fields[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return fields;
}
