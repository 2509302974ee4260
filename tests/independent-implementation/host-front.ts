// A front in the shape of nginx before an app: it terminates TLS with one certificate for
// `*.api.{domain}`, routes by the Host header alone (no SNI check, nginx's default) and passes
// each request on to an upstream HTTPS server, opening the upstream connection for the name the
// Host header gives (`proxy_ssl_server_name on; proxy_ssl_name $host`) and sends that name, without
// the front's port, as Host (`proxy_set_header Host $host`). It adds no header; it
// drops only the hop-by-hop ones. The upstream therefore sees SNI = Host = the client's Host.
import { createServer } from 'node:https';
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
    const host = incoming.headers.host;
    if (host === undefined) {
      response.writeHead(400, { 'Content-Type': 'text/plain' }).end('400 Bad Request\n');
      return;
    }
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
        headers: endToEnd(incoming.rawHeaders).map((value, index, all) =>
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

  const server = createServer({ key: certificates.key, cert: certificates.cert }, route);
  const { port, close } = await listenOnLoopback(server);
  return { port, caPem: certificates.caPem, close };
}
