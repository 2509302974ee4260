/* Generated from schemas/fixtures.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

export type Permission = 'customers:read' | 'customers:write' | 'invoices:read' | 'invoices:write';
/**
 * admin: may manage the tenant's API keys (Settings → API → API Keys). member: may sign in, but has no API Keys page.
 */
export type Role = 'admin' | 'member';

/**
 * The data set the reference server serves: tenants, their API keys (public test values) and their customers per environment.
 */
export interface Fixtures {
  /**
   * Free text; the shipped file states that its keys are public test values.
   */
  notice: string;
  /**
   * @minItems 1
   */
  tenants: [Tenant, ...Tenant[]];
}
export interface Tenant {
  /**
   * The tenant's subdomain: lowercase words joined by single hyphens. It may not start with `sandbox-`, which names the sandbox host, nor be `admin` or `api`, which name hosts of the reference server itself.
   */
  id: string;
  name: string;
  /**
   * Whether the API keys feature is enabled for the account.
   */
  apiKeysEnabled: boolean;
  keys: ApiKey[];
  /**
   * People who sign in to the tenant's administration panel (production and sandbox addresses alike). Absent means none.
   */
  users?: User[];
  customers: {
    production: Customer[];
    sandbox: Customer[];
  };
}
export interface ApiKey {
  /**
   * Public identifier, safe to log.
   */
  id: string;
  name: string;
  /**
   * The key itself: `mbk_prod_` (production) or `mbk_dev_` (development, sandbox) and 32 base62 characters.
   */
  secret: string;
  environment: 'production' | 'sandbox';
  /**
   * Full Access: every permission. Read Only: every `:read` permission. Custom: exactly `permissions`.
   */
  access: 'full_access' | 'read_only' | 'custom';
  permissions?: Permission[];
  revoked?: boolean;
}
export interface User {
  /**
   * Public identifier, safe to log.
   */
  id: string;
  /**
   * What the user types to sign in; unique within the tenant.
   */
  email: string;
  name: string;
  role: Role;
  /**
   * A PUBLIC TEST VALUE, published with the project. The server keeps only a scrypt hash of it.
   */
  password: string;
}
export interface Customer {
  id: string;
  object: 'customer';
  name: string;
  email: string;
  created_at: string;
}
