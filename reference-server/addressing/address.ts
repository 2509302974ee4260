// Which site a request is addressed to, and whether it was misdirected: decided here once for every
// request of the HTTPS listener, before any site runs, through the host steps a caller may replace
// (`HostSteps`, part of steps/server-steps.ts's `ServerSteps`). Every 421 Misdirected Request the server
// answers is this decision's: a `Host` that names another port, a host this server does not serve,
// or a connection opened (TLS SNI) for another host than the request names (RFC 9110 §7.4).
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { hostLines, hostnameOfLines, hostPortMatches } from '../http/field-lines.ts';
import { isAdminHostname, resolveApiHost, resolvePanelHost, type ApiHost } from '../http/hosts.ts';
import { factsOf, type Address, type RequestFacts, type Site } from '../http/request-facts.ts';
import type { TenantData } from '../store/tenant-data.ts';

/** What the host steps read: the server's domain and data. */
export interface HostContext {
  domain: string;
  data: TenantData;
}

/** The replaceable steps of a request's address. */
export interface HostSteps {
  /** The lines naming the host a request is for (`hostLines`: Host, or HTTP/2's :authority). */
  hostsOf(req: IncomingMessage): string[];
  /** The tenant and environment of an API host name, from the name alone (spec §5). */
  tenantOf(req: IncomingMessage, hostname: string, context: HostContext): ApiHost | undefined;
  /** Whether the connection was opened (TLS SNI) for `hostname` (RFC 9110 §7.4). */
  sniMatches(req: IncomingMessage, hostname: string): boolean;
}

export const CORRECT_HOST_STEPS: HostSteps = {
  hostsOf: hostLines,
  tenantOf: (_req, hostname, context) => resolveApiHost(hostname, context.domain),
  sniMatches,
};

/** Whether the connection's TLS SNI names `hostname`. */
export function sniMatches(req: IncomingMessage, hostname: string): boolean {
  const servername = (req.socket as TLSSocket).servername;
  return typeof servername === 'string' && servername.toLowerCase() === hostname;
}

/** The facts of a request before any site runs: its address. */
export function requestFacts(
  req: IncomingMessage,
  context: HostContext & { steps: HostSteps },
): RequestFacts {
  return factsOf(addressOf(req, context));
}

export function addressOf(req: IncomingMessage, context: HostContext & { steps: HostSteps }): Address {
  const { steps } = context;
  const hosts = steps.hostsOf(req);
  const site = siteOf(req, hostnameOfLines(hosts), context);
  const sniMatched = site.hostname !== undefined && steps.sniMatches(req, site.hostname);
  const servername = (req.socket as TLSSocket).servername;
  const sniSent = typeof servername === 'string' && servername !== '';
  let misdirected: Address['misdirected'];
  if (!hostPortMatches(hosts, req.socket.localPort)) misdirected = 'port';
  else if (site.kind === 'none') misdirected = site.hostname === undefined ? undefined : 'host';
  else if (!sniMatched) misdirected = 'sni';
  return { site, sni: !sniSent ? 'missing' : sniMatched ? 'match' : 'mismatch', misdirected };
}

/** The panel, the admin API, a tenant API (`tenantOf`) or none, in that order, by host name. */
function siteOf(
  req: IncomingMessage,
  hostname: string | undefined,
  context: HostContext & { steps: HostSteps },
): Site {
  if (hostname === undefined) return { kind: 'none', hostname };
  if (isAdminHostname(hostname, context.domain)) return { kind: 'admin', hostname };
  const panel = resolvePanelHost(hostname, context.domain);
  if (panel) return { kind: 'panel', hostname, host: panel };
  const api = context.steps.tenantOf(req, hostname, context);
  return api ? { kind: 'api', hostname, host: api } : { kind: 'none', hostname };
}
