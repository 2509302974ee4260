// Fixtures of any size for the scaling benchmark, generated in memory and deterministic: the
// same spec gives the same tenants, keys and customers. Every set is checked against
// schemas/fixtures.schema.json, so the server is measured on data it would accept from a file.
import { createHash } from 'node:crypto';
import type { Fixtures, Tenant } from '../schemas/generated/fixtures.ts';
import { describeSchemaErrors, validatorFor } from '../schemas/validators.ts';

export interface ScaleSpec {
  name: string;
  tenants: number;
  keysPerTenant: number;
}

/** The tenant and key every scaling request uses: in the middle of the data set. */
export interface ScaleTarget {
  tenant: string;
  keyId: string;
  secret: string;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const CUSTOMERS_PER_ENVIRONMENT = 3;

export function generateFixtures(spec: ScaleSpec): { fixtures: Fixtures; target: ScaleTarget } {
  const [first, ...others] = Array.from({ length: Math.max(1, spec.tenants) }, (_, t) =>
    tenant(t, spec.keysPerTenant),
  );
  if (!first) throw new Error(`Scale spec ${spec.name} has no tenant.`);
  const tenants: Fixtures['tenants'] = [first, ...others];
  const fixtures: Fixtures = {
    notice: 'Generated for the benchmark: public test values, never for a real deployment.',
    tenants,
  };
  const validate = validatorFor<Fixtures>('fixtures.schema.json');
  if (!validate(fixtures)) {
    throw new Error(
      `Generated fixtures ${spec.name} are invalid: ${describeSchemaErrors(validate.errors).join('; ')}`,
    );
  }
  const middle = tenants[Math.floor(spec.tenants / 2)];
  // The middle production key of the middle tenant (even indexes are production keys).
  const productionKeys = middle?.keys.filter((key) => key.environment === 'production') ?? [];
  const key = productionKeys[Math.floor(productionKeys.length / 2)];
  if (!middle || !key) throw new Error(`Scale spec ${spec.name} has no production key to request with.`);
  return { fixtures, target: { tenant: middle.id, keyId: key.id, secret: key.secret } };
}

function tenant(index: number, keysPerTenant: number): Tenant {
  const id = `t${String(index).padStart(6, '0')}`;
  const keys = Array.from({ length: keysPerTenant }, (_, k) => {
    const environment = k % 2 === 0 ? ('production' as const) : ('sandbox' as const);
    const prefix = environment === 'production' ? 'mbk_prod_' : 'mbk_dev_';
    return {
      id: `key_${id}_${k}`,
      name: `Generated key ${k}`,
      secret: `${prefix}${base62Of(`${id}/${k}`)}`,
      environment,
      access: 'full_access' as const,
    };
  });
  const customers = (environment: 'prod' | 'dev') =>
    Array.from({ length: CUSTOMERS_PER_ENVIRONMENT }, (_, c) => ({
      id: `cus_${id}_${environment}_${String(c + 1).padStart(3, '0')}`,
      object: 'customer' as const,
      name: `Customer ${c + 1} of ${id} (${environment})`,
      email: `customer${c + 1}+${id}-${environment}@example.com`,
      created_at: '2024-01-15T09:30:00Z',
    }));
  return {
    id,
    name: `Tenant ${id}`,
    apiKeysEnabled: true,
    keys,
    customers: { production: customers('prod'), sandbox: customers('dev') },
  };
}

/** 32 base62 characters derived from `seed`: unique per seed, like a generated key. */
function base62Of(seed: string): string {
  const bytes = createHash('sha512').update(seed).digest();
  let text = '';
  for (const byte of bytes) if (text.length < 32) text += BASE62[byte % 62];
  return text;
}
