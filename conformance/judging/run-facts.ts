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
  const places = new Map<string, Place>();
  const place = (url: string | undefined, value: Place): void => {
    if (url !== undefined) places.set(new URL(url).hostname.toLowerCase(), value);
  };
  place(target.baseUrl, { tenant: 'own', environment: 'production' });
  place(target.sandboxBaseUrl, { tenant: 'own', environment: 'sandbox' });
  place(target.otherTenantBaseUrl, { tenant: 'other', environment: 'production' });
  const keys = new Map<string, KeyRole>();
  for (const [name, variable] of Object.entries(target.credentialVariables) as [CredentialName, string][])
    keys.set(variable, KEY_ROLES[name]);
  return { places, keys, tenants };
}
