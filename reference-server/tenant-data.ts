// The store: each tenant's customers per environment, and its keys (as HMACs, in KeyStore).
import type { Customer, Fixtures } from '../schemas/generated/fixtures.ts';
import { KeyStore } from './api-keys.ts';
import type { Environment } from './hosts.ts';

export class TenantData {
  readonly keys = new KeyStore();
  readonly #customers = new Map<string, readonly Customer[]>();
  readonly tenantIds: readonly string[];

  constructor(fixtures: Fixtures) {
    this.tenantIds = fixtures.tenants.map((tenant) => tenant.id);
    for (const tenant of fixtures.tenants) {
      for (const key of tenant.keys) this.keys.add(tenant.id, key);
      for (const environment of ['production', 'sandbox'] as const) {
        this.#customers.set(scope(tenant.id, environment), tenant.customers[environment]);
      }
    }
  }

  customers(tenant: string, environment: Environment): readonly Customer[] {
    return this.#customers.get(scope(tenant, environment)) ?? [];
  }
}

function scope(tenant: string, environment: Environment): string {
  return `${environment}:${tenant}`;
}
