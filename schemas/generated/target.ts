/* Generated from schemas/target.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

/**
 * A deployment to certify. Only `baseUrl` is required; each further field enables the rules that need it. Keys are never written here: each credential names the environment variable that holds it.
 */
export interface TargetFile {
  $schema?: string;
  /**
   * How reports name this target; defaults to the base URL's host.
   */
  name?: string;
  /**
   * The tenant under test: https://{tenant}.api.{domain}/v1
   */
  baseUrl: string;
  /**
   * A second tenant of the same deployment, for the isolation rules.
   */
  otherTenantBaseUrl?: string;
  /**
   * The sandbox API of the tenant under test (its address is not shown in the spec).
   */
  sandboxBaseUrl?: string;
  /**
   * Where to try plain HTTP; defaults to the base URL with http:// and no port.
   */
  plainHttpBaseUrl?: string;
  /**
   * The name of the environment variable holding each key.
   */
  credentials?: {
    /**
     * Production, Full Access key of the tenant under test.
     */
    fullAccess?: string;
    /**
     * Production, Read Only key of the tenant under test.
     */
    readOnly?: string;
    /**
     * Valid production key of the tenant under test without the customers permission.
     */
    noCustomersPermission?: string;
    /**
     * A revoked key of the tenant under test. Taken at its word (the report says so) unless keyMinting is given: the kit then mints, sees served and revokes a key of its own, and this one is not used.
     */
    revoked?: string;
    /**
     * Development (sandbox) key of the tenant under test.
     */
    sandbox?: string;
    /**
     * Production key of the other tenant (otherTenantBaseUrl).
     */
    otherTenant?: string;
    /**
     * A valid key you accept to expose, used by probes that send a key over plain HTTP or in a URL. Revoke it after the run.
     */
    probe?: string;
  };
  /**
   * For the reference server (or a deployment with the same admin API): the suite creates every credential the file does not give, through the admin API, before the run, and revokes them after it.
   */
  keyMinting?: {
    /**
     * e.g. https://admin.localhost:8443/v1
     */
    adminBaseUrl: string;
    /**
     * The environment variable holding the admin token.
     */
    adminToken: string;
    /**
     * Defaults to the first label of baseUrl's host.
     */
    tenant?: string;
    /**
     * Defaults to the first label of otherTenantBaseUrl's host.
     */
    otherTenant?: string;
    /**
     * Also mint the probe key (sent over plain HTTP and in URLs, then revoked). Off unless asked for.
     */
    probe?: boolean;
  };
  /**
   * PEM file of a CA to trust besides the system's, relative to the target file.
   */
  caFile?: string;
  /**
   * strict: HTTP-level rules fail the run too.
   */
  profile?: 'default' | 'strict';
  /**
   * Host name patterns that DNS does not resolve, mapped to an address: {"*.api.localhost": "127.0.0.1"}.
   */
  hosts?: {
    /**
     * an IPv4 or IPv6 address, without a port or scheme (the port belongs in the base URL)
     */
    [k: string]: string;
  };
}
