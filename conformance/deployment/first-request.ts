// The preflight's one keyless GET on a connection whose handshake verified (reach.ts): over
// HTTP/1.1 it waits for a status line, over HTTP/2 for a response (a refused stream counts, the
// target speaks HTTP/2), each within the time limit, and hands back the exchange as sent and
// answered for the run's record (preflight-exchange.ts). Any status will do: only whether the
// target answers HTTP is asked.
import type { TLSSocket } from 'node:tls';
import { connect as http2Connect, constants as h2 } from 'node:http2';
import type { NameValue, RecordedExchange } from '../requests/exchange-record.ts';
import { http1Head, recordPreflightExchange, type PreflightRequest } from './preflight-exchange.ts';

/** Where the first request goes: the verified socket, the host it names, the base path. */
export interface FirstRequest {
  socket: TLSSocket;
  hostname: string;
  port: string;
  basePath: string;
  timeoutMs: number;
}

/** Whether the request got an HTTP answer (true) or why not, and the exchange as sent and answered. */
export interface FirstAnswer {
  answered: true | string;
  exchange: RecordedExchange;
}

/** host:port, or the host alone on the scheme's default port. */
function authorityOf({ hostname, port }: FirstRequest): string {
  return port ? `${hostname}:${port}` : hostname;
}

function urlOf(request: FirstRequest): string {
  return `https://${authorityOf(request)}${request.basePath}/customers`;
}

/**
 * Settles once: with what `start` reports through `done`, or with `timedOut()` after the time
 * limit; `cleanUp` (closing the connection) runs either way.
 */
function firstAnswer(
  timeoutMs: number,
  cleanUp: () => void,
  timedOut: () => FirstAnswer,
  start: (done: (result: FirstAnswer) => void) => void,
): Promise<FirstAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: FirstAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cleanUp();
      resolve(result);
    };
    const timer = setTimeout(() => done(timedOut()), timeoutMs);
    start(done);
  });
}

/** Over HTTP/2 (an h2-only port): one keyless GET on the verified connection; any status will do. */
export function firstHttp2Status(request: FirstRequest): Promise<FirstAnswer> {
  const { socket, basePath } = request;
  const session = http2Connect(`https://${authorityOf(request)}`, { createConnection: () => socket });
  // The fields as sent: the :authority (recorded as the Host it stands for) and Accept.
  const sent: PreflightRequest = {
    url: urlOf(request),
    headers: [
      { name: 'host', value: authorityOf(request) },
      { name: 'accept', value: 'application/json' },
    ],
    protocol: 'h2',
    startedAt: new Date(),
  };
  const failed = (error: string, signal?: string): FirstAnswer => ({
    answered: error,
    exchange: recordPreflightExchange(sent, { error, ...(signal !== undefined ? { signal } : {}) }),
  });
  return firstAnswer(
    request.timeoutMs,
    () => session.destroy(),
    () => failed(`nothing within ${request.timeoutMs / 1000} s`),
    (done) => {
      session.once('error', (error: NodeJS.ErrnoException) => done(failed(`${error.code ?? error.message}`)));
      sent.startedAt = new Date();
      const stream = session.request({
        ':path': `${basePath}/customers`,
        ':authority': authorityOf(request),
        accept: 'application/json',
      });
      stream.once('response', (headers) =>
        done({
          answered: true,
          exchange: recordPreflightExchange(sent, {
            status: Number(headers[h2.HTTP2_HEADER_STATUS]),
            headers: http2Fields(headers),
          }),
        }),
      );
      // A stream refused (at the front's stream limit, or for calm) is an answer of HTTP/2 too: the
      // target is up and speaks it (the rules' requests are sent again, requests/send.ts).
      stream.once('error', (error: NodeJS.ErrnoException) => {
        const refused =
          stream.rstCode === h2.NGHTTP2_REFUSED_STREAM
            ? 'RST_STREAM REFUSED_STREAM'
            : stream.rstCode === h2.NGHTTP2_ENHANCE_YOUR_CALM
              ? 'RST_STREAM ENHANCE_YOUR_CALM'
              : undefined;
        const reason = `${error.code ?? error.message}`;
        done(refused ? { ...failed(reason, refused), answered: true } : failed(reason));
      });
      stream.once('close', () => done(failed('the stream was closed without an answer')));
      stream.resume();
    },
  );
}

/** An HTTP/2 answer's header fields, pseudo-fields aside; a repeated field once per value. */
function http2Fields(headers: Record<string, string | string[] | undefined>): NameValue[] {
  return Object.entries(headers).flatMap(([name, value]) =>
    name.startsWith(':') || value === undefined
      ? []
      : (Array.isArray(value) ? value : [value]).map((one) => ({ name, value: one })),
  );
}

/**
 * Sends one keyless GET and waits for an HTTP status line (any status will do), then for the
 * answer's header fields, which the run's record keeps.
 */
export function firstStatusLine(request: FirstRequest): Promise<FirstAnswer> {
  const { socket, basePath } = request;
  const sent: PreflightRequest = {
    url: urlOf(request),
    headers: [
      { name: 'Host', value: authorityOf(request) },
      { name: 'Accept', value: 'application/json' },
      { name: 'Connection', value: 'close' },
    ],
    protocol: 'h1',
    startedAt: new Date(),
  };
  let received = '';
  // A status line read is an answer, whatever happens to the rest of its header fields.
  const ended = (error: string): FirstAnswer => {
    const head = http1Head(received);
    return head
      ? { answered: true, exchange: recordPreflightExchange(sent, head) }
      : { answered: error, exchange: recordPreflightExchange(sent, { error }) };
  };
  return firstAnswer(
    request.timeoutMs,
    () => socket.destroy(),
    () => ended(`nothing within ${request.timeoutMs / 1000} s`),
    (done) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        const head = http1Head(received);
        if (head?.complete || (head && received.length > MAX_HEAD)) done(ended(''));
        else if (!head && (received.length > 64 || received.includes('\n')))
          done(ended('the answer is not HTTP/1.1'));
      });
      socket.once('error', (error: NodeJS.ErrnoException) => done(ended(`${error.code ?? error.message}`)));
      socket.once('end', () => done(ended('the connection was closed without an answer')));
      sent.startedAt = new Date();
      socket.write(
        `GET ${basePath}/customers HTTP/1.1\r\n${sent.headers.map(({ name, value }) => `${name}: ${value}\r\n`).join('')}\r\n`,
      );
    },
  );
}

/** Enough for any answer's header fields; a front that sends more is answered, but not recorded further. */
const MAX_HEAD = 64 * 1024;
