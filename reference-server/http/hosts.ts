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
  const withoutPort = hostHeader.startsWith('[') ? hostHeader : hostHeader.replace(/:\d*$/, '');
  return withoutPort.toLowerCase().replace(/\.$/, '');
}

/**
 * The tenant and environment of `{tenant}.api.{domain}` or `sandbox-{tenant}.api.{domain}`,
 * or undefined for a host that matches neither pattern (answered 421 Misdirected Request).
 * A well-formed host of a tenant that does not exist still resolves here: it is then treated
 * exactly like a real tenant whose keys do not match, so that it tells nothing apart.
 */
export function resolveApiHost(hostname: string, domain: string): ApiHost | undefined {
  const suffix = `.api.${domain}`;
  if (!hostname.endsWith(suffix)) return undefined;
  const scope = tenantLabelScope(hostname.slice(0, -suffix.length));
  return scope && { hostname, ...scope };
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

/**
 * The tenant and environment of a panel host, or undefined. `admin.{domain}` and `api.{domain}`
 * are not panels (the fixtures schema forbids those tenant ids).
 */
export function resolvePanelHost(hostname: string, domain: string): PanelHost | undefined {
  const suffix = `.${domain}`;
  if (!hostname.endsWith(suffix)) return undefined;
  const label = hostname.slice(0, -suffix.length);
  if (label === ADMIN_HOST_LABEL || label === 'api') return undefined;
  const scope = tenantLabelScope(label);
  return scope && { hostname, ...scope };
}

/** `{tenant}` or `sandbox-{tenant}`: the tenant and environment a host label names. */
function tenantLabelScope(label: string): { tenant: string; environment: Environment } | undefined {
  const environment: Environment = label.startsWith(SANDBOX_PREFIX) ? 'sandbox' : 'production';
  const tenant = environment === 'sandbox' ? label.slice(SANDBOX_PREFIX.length) : label;
  if (!TENANT_LABEL.test(tenant) || tenant.length > 63) return undefined;
  return { tenant, environment };
}
