// API keys as the reference server holds them: never in clear. At load each key is replaced by
// its HMAC-SHA-256 under a secret of this process, and a presented key is looked up by the same
// HMAC within the (tenant, environment) of the request's host — never across tenants.
import { createHmac, randomBytes } from 'node:crypto';
import type { ApiKey, Permission } from '../schemas/generated/fixtures.ts';
import type { Environment } from './hosts.ts';

/**
 * The reference's key format (the spec does not show one): `mbk_prod_` for production keys and
 * `mbk_dev_` for development (sandbox) keys, then 32 base62 characters.
 */
export const KEY_PREFIX_BY_ENVIRONMENT: Record<Environment, string> = {
  production: 'mbk_prod_',
  sandbox: 'mbk_dev_',
};

export const ALL_PERMISSIONS: readonly Permission[] = [
  'customers:read',
  'customers:write',
  'invoices:read',
  'invoices:write',
];

/** What the server keeps of a key: everything but the secret. `id` is public and safe to log. */
export interface StoredKey {
  id: string;
  tenant: string;
  environment: Environment;
  permissions: ReadonlySet<Permission>;
  revoked: boolean;
}

export function permissionsOf(key: Pick<ApiKey, 'access' | 'permissions'>): Set<Permission> {
  switch (key.access) {
    case 'full_access':
      return new Set(ALL_PERMISSIONS);
    case 'read_only':
      return new Set(ALL_PERMISSIONS.filter((permission) => permission.endsWith(':read')));
    case 'custom':
      return new Set(key.permissions ?? []);
  }
}

export class KeyStore {
  // A Map lookup by HMAC does not reveal, by its timing, how much of a key was right: the HMAC
  // under a secret the client never sees is what is compared, not the key.
  readonly #hmacSecret = randomBytes(32);
  readonly #byScope = new Map<string, Map<string, StoredKey>>();

  add(tenant: string, key: ApiKey): void {
    const scope = scopeOf(tenant, key.environment);
    let keys = this.#byScope.get(scope);
    if (!keys) this.#byScope.set(scope, (keys = new Map<string, StoredKey>()));
    keys.set(this.#digest(key.secret), {
      id: key.id,
      tenant,
      environment: key.environment,
      permissions: permissionsOf(key),
      revoked: key.revoked ?? false,
    });
  }

  /** The active key of this tenant and environment that `presented` is, or undefined. */
  find(tenant: string, environment: Environment, presented: string): StoredKey | undefined {
    const key = this.#byScope.get(scopeOf(tenant, environment))?.get(this.#digest(presented));
    return key && !key.revoked ? key : undefined;
  }

  #digest(secret: string): string {
    return createHmac('sha256', this.#hmacSecret).update(secret, 'utf8').digest('base64');
  }
}

function scopeOf(tenant: string, environment: Environment): string {
  return `${environment}:${tenant}`;
}
