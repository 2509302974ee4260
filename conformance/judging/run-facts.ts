// What the run's checker (run-checker.ts) knows of a run besides its history: the declared tenant
// hosts, each key's tenant, environment and permissions (by the variable reports show it as), and
// the tenants' values as learned. Made from the target declaration, never from a worker's memory.
import type { CredentialName } from '../deployment/target.ts';
import type { KeyRole, Place, RunFacts } from './run-checker.ts';
import type { TenantValues } from './tenant-knowledge.ts';

const PRODUCTION_READS: KeyRole = { tenant: 'own', environment: 'production', reads: true, revoked: false };

/** What each credential a target file can name is (schemas/target.schema.json describes them). */
export const KEY_ROLES: Readonly<Record<CredentialName, KeyRole>> = {
  fullAccess: PRODUCTION_READS,
  readOnly: PRODUCTION_READS,
  // A valid key of the tenant under test that the run accepts to expose (plain HTTP, URLs).
  probe: PRODUCTION_READS,
  noCustomersPermission: { ...PRODUCTION_READS, reads: false },
  revoked: { ...PRODUCTION_READS, revoked: true },
  sandbox: { ...PRODUCTION_READS, environment: 'sandbox' },
  otherTenant: { ...PRODUCTION_READS, tenant: 'other' },
};

export interface DeclaredHostsAndKeys {
  baseUrl: string;
  otherTenantBaseUrl?: string;
  sandboxBaseUrl?: string;
  /** Each credential's variable, minted keys' included (target.ts withCredentials). */
  credentialVariables: Partial<Record<CredentialName, string>>;
}

export function runFactsOf(
  target: DeclaredHostsAndKeys,
  tenants: Readonly<Partial<Record<'own' | 'other', TenantValues>>>,
): RunFacts {
  // A host name or a key variable the target gives more than one role is left unjudged: the roles
  // are the vendor's slip, which the rules needing them report as not evaluated (target-roles.ts),
  // and the checker must not turn the slip into a failure of the deployment.
  const places = new Map<string, Place>();
  const unjudgedHosts = new Set<string>();
  const place = (url: string | undefined, value: Place): void => {
    if (url === undefined) return;
    const host = new URL(url).hostname.toLowerCase();
    const known = places.get(host);
    if (known && (known.tenant !== value.tenant || known.environment !== value.environment))
      unjudgedHosts.add(host);
    places.set(host, value);
  };
  place(target.baseUrl, { tenant: 'own', environment: 'production' });
  place(target.sandboxBaseUrl, { tenant: 'own', environment: 'sandbox' });
  place(target.otherTenantBaseUrl, { tenant: 'other', environment: 'production' });
  for (const host of unjudgedHosts) places.delete(host);
  const keys = new Map<string, KeyRole>();
  const unjudgedKeys = new Set<string>();
  for (const [name, variable] of Object.entries(target.credentialVariables) as [CredentialName, string][]) {
    const known = keys.get(variable);
    if (known && JSON.stringify(known) !== JSON.stringify(KEY_ROLES[name])) unjudgedKeys.add(variable);
    keys.set(variable, KEY_ROLES[name]);
  }
  // A key of two roles is then no known key: its requests are unjudged (credentialOf).
  for (const variable of unjudgedKeys) keys.delete(variable);
  return { places, unjudgedHosts, keys, tenants };
}
