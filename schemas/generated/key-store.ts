/* Generated from schemas/key-store.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

/**
 * The reference server's key store on disk (`keys.json` in its data directory). It holds each key's HMAC under the secret in `hmac-secret` beside it, never a key itself.
 */
export interface KeyStoreFile {
  format: 'reference-key-store/1';
  keys: KeyStoreRecord[];
}
export interface KeyStoreRecord {
  id: string;
  tenant: string;
  /**
   * A label for people: 1 to 100 characters, not only spaces, no control characters.
   */
  name: string;
  /**
   * production: a Production key (`mbk_prod_`), served at https://{tenant}.api.{domain}/v1. sandbox: a Development key (`mbk_dev_`), served at https://sandbox-{tenant}.api.{domain}/v1.
   */
  environment: 'production' | 'sandbox';
  /**
   * Full Access: every permission. Read Only: every `:read` permission. custom: exactly the chosen permissions.
   */
  access: 'full_access' | 'read_only' | 'custom';
  /**
   * The chosen permissions of a `custom` key; absent otherwise.
   */
  permissions?: ('customers:read' | 'customers:write' | 'invoices:read' | 'invoices:write')[];
  /**
   * Base64 HMAC-SHA-256 of the key under the data directory's `hmac-secret`.
   */
  hmac: string;
  last4: string;
  /**
   * fixture: seeded from the fixtures file (and removed when it leaves that file). created: made in the panel or the admin API.
   */
  origin: 'fixture' | 'created';
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}
