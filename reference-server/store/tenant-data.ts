// The store: each tenant's customers per environment, and its keys (as HMACs, in KeyStore).
import type { Customer, Fixtures, Tenant } from '../../schemas/generated/fixtures.ts';
import { KeyStore } from './api-keys.ts';
import type { Environment } from '../http/hosts.ts';

/** What the panel and the admin API need to know of a tenant account. */
export type TenantAccount = Pick<Tenant, 'id' | 'name' | 'apiKeysEnabled'>;

export class TenantData {
  readonly keys: KeyStore;
  /** Tenant, then environment (no string joining the two per request). */
  readonly #customers = new Map<string, Record<Environment, readonly Customer[]>>();
  readonly #accounts = new Map<string, TenantAccount>();
  readonly tenantIds: readonly string[];

  /**
   * @param keys a store holding keys from an earlier run (see key-store-file.ts), or a fresh one.
   *   The fixtures are its seed: their keys are added, and keys of tenants that are no longer
   *   served, or whose feature is disabled, are dropped, as are fixture keys no longer in the file.
   */
  constructor(fixtures: Fixtures, keys: KeyStore = new KeyStore()) {
    this.keys = keys;
    this.tenantIds = fixtures.tenants.map((tenant) => tenant.id);
    for (const tenant of fixtures.tenants) {
      this.#accounts.set(tenant.id, {
        id: tenant.id,
        name: tenant.name,
        apiKeysEnabled: tenant.apiKeysEnabled,
      });
      for (const key of tenant.keys) this.keys.add(tenant.id, key);
      // Frozen copies: the customers never change while the server runs, which lets the
      // pipeline build each list's answer once (api/request-pipeline.ts, `customersAnswer`).
      this.#customers.set(tenant.id, {
        production: frozenCopy(tenant.customers.production),
        sandbox: frozenCopy(tenant.customers.sandbox),
      });
    }
    const fixtureKeyIds = new Set(fixtures.tenants.flatMap((tenant) => tenant.keys.map((key) => key.id)));
    this.keys.retain(
      (record) =>
        this.#accounts.get(record.tenant)?.apiKeysEnabled === true &&
        (record.origin === 'created' || fixtureKeyIds.has(record.id)),
    );
  }

  /** The tenant account `id`, or undefined when no such tenant is served. */
  account(id: string): TenantAccount | undefined {
    return this.#accounts.get(id);
  }

  customers(tenant: string, environment: Environment): readonly Customer[] {
    return this.#customers.get(tenant)?.[environment] ?? NO_CUSTOMERS;
  }
}

const NO_CUSTOMERS: readonly Customer[] = Object.freeze([]);

function frozenCopy(customers: readonly Customer[]): readonly Customer[] {
  return Object.freeze(customers.map((customer) => Object.freeze({ ...customer })));
}
