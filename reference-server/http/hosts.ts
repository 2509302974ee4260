// Which tenant and environment a request is for, from the host name alone (spec §5 "Tenant
// identification"). Nothing else — no header, query parameter or body field — names the tenant.

export type Environment = 'production' | 'sandbox';

export interface ApiHost {
  hostname: string;
  tenant: string;
  environment: Environment;
}

/** Spec §4: the tenant is "lowercase words, hyphens allowed". */
const TENANT_LABEL = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * The sandbox API host is not shown in the spec; the reference serves it at
 * `sandbox-{tenant}.api.{domain}`, mirroring the sandbox environment address.
 */
export const SANDBOX_PREFIX = 'sandbox-';

export function apiHostname(tenant: string, environment: Environment, domain: string): string {
  return environment === 'sandbox' ? `${SANDBOX_PREFIX}${tenant}.api.${domain}` : `${tenant}.api.${domain}`;
}

/** The host name of a `Host` header value: port removed, lowercased (host names are case-insensitive). */
export function hostnameOf(hostHeader: string): string {
  const port = hostHeader.startsWith('[') ? -1 : portSeparatorIndex(hostHeader);
  const lower = (port === -1 ? hostHeader : hostHeader.slice(0, port)).toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * Where the `:` of a final `:` and digits (`/:\d*$/`) is in `value`, or -1. Scanned rather than
 * matched: every request's `Host` goes through here.
 */
export function portSeparatorIndex(value: string): number {
  let index = value.length - 1;
  while (index >= 0 && isDigit(value.charCodeAt(index))) index -= 1;
  return index >= 0 && value.charCodeAt(index) === COLON ? index : -1;
}

const COLON = 0x3a;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * The tenant and environment of `{tenant}.api.{domain}` or `sandbox-{tenant}.api.{domain}`,
 * or undefined for a host that matches neither pattern (answered 421 Misdirected Request).
 * A well-formed host of a tenant that does not exist still resolves here: it is then treated
 * exactly like a real tenant whose keys do not match, so that it tells nothing apart.
 */
export function resolveApiHost(hostname: string, domain: string): ApiHost | undefined {
  const suffix = suffixesOf(domain).api;
  if (!hostname.endsWith(suffix)) return undefined;
  const scope = tenantLabelScope(hostname.slice(0, -suffix.length));
  return scope && { hostname, tenant: scope.tenant, environment: scope.environment };
}

interface DomainSuffixes {
  domain: string;
  /** `.api.{domain}`: what every API host name ends with. */
  api: string;
  /** `.{domain}`: what every panel host name ends with. */
  panel: string;
  /** `admin.{domain}`. */
  admin: string;
}

/** The suffixes of the last domain asked (a server has one): not joined anew for every request. */
let lastSuffixes: DomainSuffixes = { domain: '', api: '.api.', panel: '.', admin: 'admin.' };

function suffixesOf(domain: string): DomainSuffixes {
  if (lastSuffixes.domain !== domain)
    lastSuffixes = { domain, api: `.api.${domain}`, panel: `.${domain}`, admin: adminHostname(domain) };
  return lastSuffixes;
}

/** A tenant's administration panel (spec §5 "Environments"): `{tenant}.{domain}` or `sandbox-{tenant}.{domain}`. */
export interface PanelHost {
  hostname: string;
  tenant: string;
  environment: Environment;
}

/** The host of the reference's admin JSON API (not part of the spec). */
export const ADMIN_HOST_LABEL = 'admin';

export function panelHostname(tenant: string, environment: Environment, domain: string): string {
  return environment === 'sandbox' ? `${SANDBOX_PREFIX}${tenant}.${domain}` : `${tenant}.${domain}`;
}

export function adminHostname(domain: string): string {
  return `${ADMIN_HOST_LABEL}.${domain}`;
}

/** The URLs of a server's sites, on its ports. */
export interface SiteUrls {
  /** `https://{tenant}.api.{domain}:{port}/v1` (or the sandbox host) of a tenant. */
  baseUrl(tenant: string, environment?: Environment): string;
  /** `http://…` of the same address, on the plain-HTTP listener. */
  plainHttpBaseUrl(tenant: string, environment?: Environment): string | undefined;
  /** `https://{tenant}.{domain}:{port}` (or `sandbox-{tenant}…`): the tenant's administration panel. */
  panelUrl(tenant: string, environment?: Environment): string;
  /** `https://admin.{domain}:{port}/v1`: the admin API. */
  adminBaseUrl: string;
}

/** @param ports the HTTPS port, and the plain-HTTP port (null: no plain listener). */
export function siteUrls(domain: string, ports: { https: number; http: number | null }): SiteUrls {
  return {
    baseUrl: (tenant, environment = 'production') =>
      `https://${apiHostname(tenant, environment, domain)}:${ports.https}/v1`,
    plainHttpBaseUrl: (tenant, environment = 'production') =>
      ports.http === null ? undefined : `http://${apiHostname(tenant, environment, domain)}:${ports.http}/v1`,
    panelUrl: (tenant, environment = 'production') =>
      `https://${panelHostname(tenant, environment, domain)}:${ports.https}`,
    adminBaseUrl: `https://${adminHostname(domain)}:${ports.https}/v1`,
  };
}

export function isAdminHostname(hostname: string, domain: string): boolean {
  return hostname === suffixesOf(domain).admin;
}

/**
 * The tenant and environment of a panel host, or undefined. `admin.{domain}` and `api.{domain}`
 * are not panels (the fixtures schema forbids those tenant ids).
 */
export function resolvePanelHost(hostname: string, domain: string): PanelHost | undefined {
  const suffix = suffixesOf(domain).panel;
  if (!hostname.endsWith(suffix)) return undefined;
  const label = hostname.slice(0, -suffix.length);
  if (label === ADMIN_HOST_LABEL || label === 'api') return undefined;
  // An API host (`acme.api.{domain}`) leaves a label with a dot, which no tenant label has.
  if (label.includes('.')) return undefined;
  const scope = tenantLabelScope(label);
  return scope && { hostname, tenant: scope.tenant, environment: scope.environment };
}

/** `{tenant}` or `sandbox-{tenant}`: the tenant and environment a host label names. */
function tenantLabelScope(label: string): { tenant: string; environment: Environment } | undefined {
  const environment: Environment = label.startsWith(SANDBOX_PREFIX) ? 'sandbox' : 'production';
  const tenant = environment === 'sandbox' ? label.slice(SANDBOX_PREFIX.length) : label;
  if (!TENANT_LABEL.test(tenant) || tenant.length > 63) return undefined;
  return { tenant, environment };
}
