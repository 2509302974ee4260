// One request over HTTP/2 on a connection of its own: the `:authority` is the request's Host (so
// a rule that names another host than the TLS SNI does so the way HTTP/2 does), every other field
// as the rule set it, lower-cased as HTTP/2 requires. Certificate verification stays on.
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import type { SecureContext } from 'node:tls';
import { elapsedSince, readAnswer, type Exchange, type RequestSummary } from './exchange.ts';
import type { lookupWith } from './host-map.ts';

export interface H2Connection {
  lookup: ReturnType<typeof lookupWith>;
  secureContext: SecureContext | undefined;
}

/** Fields HTTP/2 forbids (RFC 9113 §8.2.2) or carries as a pseudo-header. */
const NOT_SENT_AS_FIELDS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

/** Whether HTTP/2 can carry these fields as they are: node's client sends one field per name. */
export function expressibleOverH2(headers: readonly (readonly [string, string])[]): boolean {
  const names = headers.map(([name]) => name.toLowerCase()).filter((name) => !NOT_SENT_AS_FIELDS.has(name));
  return new Set(names).size === names.length;
}

export function transmitH2(
  url: URL,
  summary: RequestSummary,
  body: string | undefined,
  timeoutMs: number,
  connection: H2Connection,
  maxBodyBytes: number,
): Promise<Exchange> {
  const authority = summary.headers.find(([name]) => name.toLowerCase() === 'host')?.[1] ?? url.host;
  const fields: Record<string, string> = {
    [constants.HTTP2_HEADER_METHOD]: summary.method,
    [constants.HTTP2_HEADER_PATH]: `${url.pathname}${url.search}`,
    [constants.HTTP2_HEADER_SCHEME]: 'https',
    [constants.HTTP2_HEADER_AUTHORITY]: authority,
  };
  for (const [name, value] of summary.headers)
    if (!NOT_SENT_AS_FIELDS.has(name.toLowerCase())) fields[name.toLowerCase()] = value;

  return new Promise<Exchange>((settle) => {
    let settled = false;
    const finish = (exchange: Exchange): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      session.destroy();
      settle(exchange);
    };
    const failed = (error: NodeJS.ErrnoException): void =>
      finish({
        kind: 'failure',
        request: summary,
        durationMs: elapsedSince(summary),
        error: error.code ? `${error.code}: ${error.message}` : error.message,
      });
    // The whole exchange is bounded, handshake included, as over HTTP/1.1.
    const deadline = setTimeout(
      () => failed(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
      timeoutMs,
    );
    const session: ClientHttp2Session = connect(url.origin, {
      servername: url.hostname,
      lookup: connection.lookup,
      ...(connection.secureContext ? { secureContext: connection.secureContext } : {}),
    });
    session.on('error', failed);
    const stream = session.request(fields, { endStream: body === undefined || body === '' });
    stream.on('error', failed);
    let status = 0;
    let headers: Record<string, string> = {};
    stream.on('response', (answer: IncomingHttpHeaders) => {
      status = Number(answer[constants.HTTP2_HEADER_STATUS] ?? 0);
      headers = joined(answer);
    });
    readAnswer(stream, maxBodyBytes, (bodyText) =>
      finish({
        kind: 'response',
        request: summary,
        durationMs: elapsedSince(summary),
        status,
        headers,
        bodyText,
      }),
    );
    if (body) stream.end(body);
  });
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
