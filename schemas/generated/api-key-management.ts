/* Generated from schemas/api-key-management.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

/**
 * Payloads of API key management in the reference server (Settings → API → API Keys in the panel, and the admin API). A key's secret appears only in `CreatedKey` and `RotatedKey`, once; everything else describes a key by metadata.
 */
export type ApiKeyManagementPayload = NewKeyRequest | ApiKeyMetadata | ApiKeyList | CreatedKey | RotatedKey;
/**
 * A label for people: 1 to 100 characters, not only spaces, no control characters.
 */
export type KeyName = string;
/**
 * production: a Production key (`mbk_prod_`), served at https://{tenant}.api.{domain}/v1. sandbox: a Development key (`mbk_dev_`), served at https://sandbox-{tenant}.api.{domain}/v1.
 */
export type Environment = 'production' | 'sandbox';
/**
 * Full Access: every permission. Read Only: every `:read` permission. custom: exactly the chosen permissions.
 */
export type Access = 'full_access' | 'read_only' | 'custom';
export type KeyId = string;
export type KeySecret = string;

/**
 * What a new key is to be. `permissions` is given exactly when `access` is `custom`.
 */
export interface NewKeyRequest {
  name: KeyName;
  environment: Environment;
  access: Access;
  /**
   * @minItems 1
   */
  permissions?: [
    'customers:read' | 'customers:write' | 'invoices:read' | 'invoices:write',
    ...('customers:read' | 'customers:write' | 'invoices:read' | 'invoices:write')[],
  ];
}
/**
 * A key as listed: never its secret, only the prefix and the last four characters that let a person recognise it.
 */
export interface ApiKeyMetadata {
  id: KeyId;
  name: KeyName;
  environment: Environment;
  access: Access;
  /**
   * Every permission the key grants (for `full_access` and `read_only` too).
   */
  permissions: ('customers:read' | 'customers:write' | 'invoices:read' | 'invoices:write')[];
  prefix: 'mbk_prod_' | 'mbk_dev_';
  last4: string;
  created_at: string;
  /**
   * When the key last authenticated a request; recorded in memory and written to the store periodically, so it may lag by up to the flush interval after a crash.
   */
  last_used_at: string | null;
  revoked: boolean;
  revoked_at: string | null;
}
export interface ApiKeyList {
  object: 'list';
  data: ApiKeyMetadata[];
  /**
   * Always false: every key is returned in one page.
   */
  has_more: false;
}
/**
 * The answer to a creation: the only time the secret is ever returned.
 */
export interface CreatedKey {
  key: ApiKeyMetadata;
  secret: KeySecret;
}
/**
 * The answer to a rotation: a new key with the old one's name and permissions, and the old key, now revoked.
 */
export interface RotatedKey {
  key: ApiKeyMetadata;
  secret: KeySecret;
  revoked_key: ApiKeyMetadata;
}
