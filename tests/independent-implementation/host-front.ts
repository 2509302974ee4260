// A front in the shape of nginx before an app: it terminates TLS with one certificate for
// `*.api.{domain}`, routes by the Host header alone (no SNI check, nginx's default) and passes
// each request on to an upstream HTTPS server, opening the upstream connection for the name the
// Host header gives (`proxy_ssl_server_name on; proxy_ssl_name $host`) and sends that name, without
// the front's port, as Host (`proxy_set_header Host $host`). It adds no header; it
// drops only the hop-by-hop ones. The upstream therefore sees SNI = Host = the client's Host.
// With `http2` it also speaks HTTP/2 by ALPN (`listen 443 ssl; http2 on;`) and still talks
// HTTP/1.1 to the upstream: an HTTP/2 request's host is its `:authority` (nginx's $host then),
// sent upstream as the Host field, first, and its pseudo-header fields are not passed on.
import { createServer } from 'node:https';
import { createSecureServer } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { makeCertificates } from './certificates.ts';
import { listenOnLoopback } from './loopback-listener.ts';
import { endToEnd, forward } from './forwarding.ts';

export interface HostFront {
  port: number;
  /** PEM of the CA that signed the front's certificate. */
  caPem: string;
  close(): Promise<void>;
}

export interface HostFrontOptions {
  upstreamPort: number;
  /** PEM of the CA the upstream's certificate chains to. */
  upstreamCa: string;
  domain?: string;
  /**
   * A defect, for defects.test.ts: the front caches every 200 answer to a GET under the Host name
   * and the URL, ignoring Authorization (and the answer's Cache-Control), and gives it to every
   * later GET of that name and URL without asking the upstream.
   */
  cacheByHostAndUrl?: boolean;
  /** HTTP/2 besides HTTP/1.1, chosen by ALPN on the one listener; HTTP/1.1 to the upstream either way. */
  http2?: boolean;
}

interface CachedAnswer {
  status: number;
  rawHeaders: string[];
  body: Buffer;
}

/** Distinct URLs the caching front keeps at most: the suite asks for a handful. */
const CACHE_ENTRIES = 1000;

export async function startHostFront(options: HostFrontOptions): Promise<HostFront> {
  const domain = options.domain ?? 'localhost';
  // The second name covers the independent implementation's sandbox hosts ({tenant}.sandbox.api.…).
  const certificates = await makeCertificates('Host Front Test CA', [
    `*.api.${domain}`,
    `*.sandbox.api.${domain}`,
  ]);

  const cache = new Map<string, CachedAnswer>();
  const route = (incoming: IncomingMessage, response: ServerResponse): void => {
    // An HTTP/2 request object has its stream; a version number can be claimed by any request line.
    const request = 'stream' in incoming ? overHttp2(incoming) : overHttp1(incoming);
    if (request === undefined) {
      response.writeHead(400, { 'Content-Type': 'text/plain' }).end('400 Bad Request\n');
      return;
    }
    const { host, fields } = request;
    // The name the Host header gives, without its port: what nginx's $host holds, sent upstream
    // as SNI and as Host (`proxy_set_header Host $host`).
    const name = host.replace(/:\d*$/, '');
    const cacheKey =
      options.cacheByHostAndUrl && incoming.method === 'GET' ? `${name} ${incoming.url}` : undefined;
    const cached = cacheKey === undefined ? undefined : cache.get(cacheKey);
    if (cached) {
      response.writeHead(cached.status, cached.rawHeaders).end(cached.body);
      return;
    }
    forward(
      incoming,
      response,
      { port: options.upstreamPort, ca: options.upstreamCa },
      {
        servername: name,
        headers: fields.map((value, index, all) =>
          index % 2 === 1 && all[index - 1]?.toLowerCase() === 'host' ? name : value,
        ),
        onAnswer: (answer, rawHeaders) => {
          if (cacheKey === undefined || answer.statusCode !== 200 || cache.size >= CACHE_ENTRIES) return;
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            cache.set(cacheKey, { status: 200, rawHeaders, body: Buffer.concat(chunks) }),
          );
        },
      },
    );
  };

  const tls = { key: certificates.key, cert: certificates.cert };
  const server = options.http2
    ? // Node's HTTP/2 compatibility objects carry what `route` reads (rawHeaders, url, method) and
      // what forwarding writes (writeHead with field lines, a writable body).
      createSecureServer(
        { ...tls, allowHTTP1: true },
        route as unknown as Parameters<typeof createSecureServer>[1],
      )
    : createServer(tls, route);
  const { port, close } = await listenOnLoopback(server);
  return { port, caPem: certificates.caPem, close };
}

/** A request's host and the field lines to pass on (hop-by-hop ones dropped), by its protocol. */
interface Routed {
  host: string;
  fields: string[];
}

function overHttp1(incoming: IncomingMessage): Routed | undefined {
  const host = incoming.headers.host;
  return host === undefined ? undefined : { host, fields: endToEnd(incoming.rawHeaders) };
}

/**
 * The host is `:authority` (RFC 9113 §8.3.1), or a `host` field when a client sent that instead;
 * both, naming different hosts, is a bad request, as two Host fields are. Pseudo-header fields
 * describe the HTTP/2 request itself: the upstream gets its own request line and a Host field.
 */
function overHttp2(incoming: IncomingMessage): Routed | undefined {
  const lines = incoming.rawHeaders;
  const valuesOf = (name: string): string[] =>
    lines.flatMap((value, index) => (index % 2 === 1 && lines[index - 1] === name ? [value] : []));
  const hosts = new Set([...valuesOf(':authority'), ...valuesOf('host')]);
  const [host] = hosts;
  if (host === undefined || hosts.size > 1) return undefined;
  const fields = ['Host', host];
  const kept = endToEnd(lines);
  for (let index = 0; index + 1 < kept.length; index += 2) {
    const name = kept[index] ?? '';
    if (!name.startsWith(':') && name !== 'host') fields.push(name, kept[index + 1] ?? '');
  }
  return { host, fields };
}
