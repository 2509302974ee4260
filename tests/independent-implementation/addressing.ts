// Which tenant and environment a request addresses. Only the Host header and the TLS SNI of the
// connection count: forwarding headers, tenant-id headers and query parameters are never read.
// Production: https://{tenant}.api.{domain}; sandbox (this implementation's own choice, the spec
// does not show it): https://{tenant}.sandbox.api.{domain}.
import type { Environment } from './directory.ts';

export type Addressing =
  | { kind: 'tenant'; tenant: string; environment: Environment }
  /** The connection was opened for another name than the Host header gives (RFC 9110 §7.4). */
  | { kind: 'misdirected' }
  /** No single Host header, or one that names no tenant address. */
  | { kind: 'unknown-host' };

const TENANT_LABEL = '[a-z0-9]+(?:-[a-z0-9]+)*';

export function hostPattern(domain: string): RegExp {
  const escaped = domain.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^(${TENANT_LABEL})\\.(sandbox\\.)?api\\.${escaped}$`);
}

/** The host name of a Host header value: no port, lower case, no trailing dot. */
function hostName(value: string): string {
  return value.replace(/:\d*$/, '').replace(/\.$/, '').toLowerCase();
}

export function addressing(
  hostHeaders: readonly string[] | undefined,
  servername: string | false | null | undefined,
  pattern: RegExp,
): Addressing {
  if (hostHeaders?.length !== 1) return { kind: 'unknown-host' };
  const host = hostName(hostHeaders[0] ?? '');
  // A client that sent no SNI (an IP-literal connection) cannot have named another tenant.
  if (typeof servername === 'string' && hostName(servername) !== host) return { kind: 'misdirected' };
  const match = pattern.exec(host);
  if (!match?.[1]) return { kind: 'unknown-host' };
  return { kind: 'tenant', tenant: match[1], environment: match[2] ? 'test' : 'live' };
}
