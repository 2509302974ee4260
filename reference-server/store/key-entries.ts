// How the key store holds a key in memory: the view the API pipeline reads (`StoredKey`), the
// entry behind it, the per-(tenant, environment) indexes, and the metadata shown for a key
// (never its secret).
import type { Permission } from '../../schemas/generated/fixtures.ts';
import type { ApiKeyMetadata } from '../../schemas/generated/api-key-management.ts';
import type { KeyStoreRecord } from '../../schemas/generated/key-store.ts';
import type { Environment } from '../http/hosts.ts';
import { KEY_PREFIX_BY_ENVIRONMENT } from './key-format.ts';
import { ALL_PERMISSIONS } from './key-permissions.ts';

/** What the server keeps of a key: everything but the secret. `id` is public and safe to log. */
export interface StoredKey {
  id: string;
  tenant: string;
  environment: Environment;
  permissions: ReadonlySet<Permission>;
  revoked: boolean;
}

/** A key of the store: the lookup view the API pipeline uses, plus what the store file keeps. */
export interface Entry extends StoredKey {
  record: KeyStoreRecord;
  /** Last successful authentication, as a number so that recording it per request costs nothing. */
  lastUsedMs: number | null;
  /**
   * `secretDigest` of the key, in memory only; unknown for a key read from the store file until
   * it is first presented (the file keeps HMACs only).
   */
  digest: string | undefined;
}

/** The keys of one (tenant, environment). */
export interface ScopeKeys {
  byHmac: Map<string, Entry>;
  byDigest: Map<string, Entry>;
  /**
   * How many active keys of the scope have no digest yet (keys read from the store file and not
   * presented since): only while there are any does a miss cost an HMAC too. Revoked keys do not
   * count: they can never authenticate, so a miss need not look for them.
   */
  undigested: number;
}

export function metadataOf(entry: Entry): ApiKeyMetadata {
  const { record } = entry;
  return {
    id: record.id,
    name: record.name,
    environment: record.environment,
    access: record.access,
    permissions: ALL_PERMISSIONS.filter((permission) => entry.permissions.has(permission)),
    prefix: KEY_PREFIX_BY_ENVIRONMENT[record.environment],
    last4: record.last4,
    created_at: record.created_at,
    last_used_at: entry.lastUsedMs === null ? null : new Date(entry.lastUsedMs).toISOString(),
    revoked: entry.revoked,
    revoked_at: record.revoked_at,
  };
}
