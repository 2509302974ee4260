// The field lines of one request header, read from the request as received.

import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { hostnameOf, portSeparatorIndex } from './hosts.ts';

/**
 * Every value of the header `name` (lower case), one per field line, in the order received: what
 * Node's `req.headersDistinct[name]` holds (`req.headers` keeps only the first of a duplicated
 * `Authorization`), without building the table of every other header first. The API reads two
 * headers of each request, and building that table would cost more than checking them.
 * Both listeners set `maxHeadersCount = 0`, so `rawHeaders` holds every line the size limit allows.
 */
export function fieldLines(req: IncomingMessage, name: string): string[] {
  const raw = req.rawHeaders;
  const values: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const field = raw[index] as string;
    // The usual spellings (`host`, `Host`) match without a lower-case copy of the name.
    if (field.length === name.length && (field === name || field.toLowerCase() === name))
      values.push(raw[index + 1] as string);
  }
  return values;
}

/**
 * The lines naming the host a request is for. HTTP/1.1: its `Host` field lines. HTTP/2: its
 * `:authority`, and its `host` field if it sends one too (RFC 9113 §8.3.1) — the same host name
 * both ways counts once, two different ones count as two hosts, which the API answers 400 like two
 * `Host` lines over HTTP/1.1: a request naming two tenants is served neither's data.
 */
export function hostLines(req: IncomingMessage): string[] {
  const hosts = fieldLines(req, 'host');
  if (!overHttp2(req)) return hosts;
  const authorities = fieldLines(req, ':authority');
  const [authority] = authorities;
  if (authority === undefined) return hosts;
  // One host named twice, with or without its port (`acme…:8443` and `acme…`), is one host.
  const [host] = hosts;
  const sameAuthority =
    authorities.length === 1 &&
    hosts.length === 1 &&
    host !== undefined &&
    hostnameOf(host) === hostnameOf(authority);
  return sameAuthority ? authorities : [...authorities, ...hosts];
}

/**
 * The host name a request is for: its one host line (`hostLines`), without the port, lower case;
 * undefined when the request names no host or more than one (both answered 400 by the API).
 */
export function requestHostname(req: IncomingMessage): string | undefined {
  return hostnameOfLines(hostLines(req));
}

/** `requestHostname` of the request's `Host` field lines, read already. */
export function hostnameOfLines(hosts: readonly string[]): string | undefined {
  return hosts.length === 1 ? hostnameOf(hosts[0] as string) : undefined;
}

/**
 * Whether the port the one `Host` field names (if it names one) is `localPort`, the port the
 * request arrived on. A `Host` without a port passes: behind a port forward (443 → 8443) browsers
 * send none. No `Host` or several pass too: the pipeline answers those 400.
 */
export function hostPortMatches(hosts: readonly string[], localPort: number | undefined): boolean {
  if (hosts.length !== 1) return true;
  const host = hosts[0] as string;
  // The digits after a final `:` (`/:(\d+)$/`); none after it is no port.
  const separator = portSeparatorIndex(host);
  return separator === -1 || separator === host.length - 1 || Number(host.slice(separator + 1)) === localPort;
}

/**
 * Whether a request came over HTTP/2: Node's HTTP/2 request object carries its stream. Not
 * `httpVersionMajor`: an HTTP/1.1 request line may claim `HTTP/2.0`, and Node's parser takes it.
 */
export function overHttp2(req: IncomingMessage): boolean {
  return (req as unknown as Partial<Http2ServerRequest>).stream !== undefined;
}

/** A request's HTTP version as the journal and the access log name it: h1 (HTTP/1.x) or h2. */
export function requestProtocol(req: IncomingMessage): 'h1' | 'h2' {
  return overHttp2(req) ? 'h2' : 'h1';
}
