// The tenant hosts the rules derive from a declared base URL: its tenant's label, and the same
// base URL on a well-formed host of a tenant that does not exist.
import { randomBytes } from 'node:crypto';

/** The tenant label of a base URL: the first label of its host. */
export function tenantLabel(baseUrl: string): string {
  return new URL(baseUrl).hostname.split('.')[0] ?? '';
}

/** `baseUrl` with its tenant label replaced by one no tenant has (random, so never a real one). */
export function noSuchTenantBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.hostname = url.hostname.replace(
    tenantLabel(baseUrl),
    `no-such-tenant-${randomBytes(4).toString('hex')}`,
  );
  return url.toString().replace(/\/$/, '');
}
