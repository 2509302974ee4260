// The data of the independent implementation: two tenants, each with a live and a test
// environment, their customers, and API keys in a format of their own (`sk_live_…`, `sk_test_…`).
// Keys are made fresh at every start and looked up by their SHA-256 digest, so that the key
// text never serves as a map key and a near miss costs the same lookup as a hit.
import { createHash, randomBytes } from 'node:crypto';

export type Environment = 'live' | 'test';
export type Permission = 'customers:read' | 'customers:write' | 'invoices:read';

export interface Customer {
  id: string;
  name: string;
  email: string;
}

/** Every customer value differs between tenants and environments, so a leak is recognisable. */
const CUSTOMERS: Record<string, Record<Environment, Customer[]>> = {
  acme: {
    live: [
      {
        id: 'cus_Lv7aQm2Rx9',
        name: 'Roadrunner Logistics Ltd',
        email: 'billing@roadrunner-logistics.example',
      },
      { id: 'cus_Lv3kPz8Wd1', name: 'Mesa Anvil Works', email: 'accounts@mesa-anvil.example' },
    ],
    test: [{ id: 'cus_Ts4hGc6Nb2', name: 'Sandbox Canyon Testers', email: 'qa@canyon-sandbox.example' }],
  },
  globex: {
    live: [
      { id: 'cus_Lv9sYe1Fj5', name: 'Cypress Creek Holdings', email: 'hank@cypress-creek.example' },
      { id: 'cus_Lv2bVt7Hq3', name: 'Springfield Reactor Supply', email: 'orders@reactor-supply.example' },
    ],
    test: [{ id: 'cus_Ts8mDk3Lp6', name: 'Staging Doomsday Props', email: 'dev@doomsday-staging.example' }],
  },
};

export const TENANTS = Object.keys(CUSTOMERS);

export function customersOf(tenant: string, environment: Environment): Customer[] {
  return CUSTOMERS[tenant]?.[environment] ?? [];
}

/** Customers of a long list: the tenant's own, then generated ones, LONG_LIST_LENGTH in all (live only). */
export const LONG_LIST_LENGTH = 300;

const LONG_LISTS = new Map<string, Customer[]>();

/** A live list of LONG_LIST_LENGTH customers (the test environment keeps its short list). */
export function longCustomerList(tenant: string, environment: Environment): Customer[] {
  const own = customersOf(tenant, environment);
  if (environment !== 'live') return own;
  const known = LONG_LISTS.get(tenant);
  if (known) return known;
  const label = tenant.charAt(0).toUpperCase() + tenant.slice(1);
  const generated = Array.from({ length: Math.max(0, LONG_LIST_LENGTH - own.length) }, (_unused, index) => {
    const number = String(index + 1).padStart(4, '0');
    return {
      id: `cus_${tenant}X${number}`,
      name: `${label} Client ${number}`,
      email: `client${number}@${tenant}-clients.example`,
    };
  });
  const list = [...own, ...generated];
  LONG_LISTS.set(tenant, list);
  return list;
}

export interface KeyRecord {
  tenant: string;
  environment: Environment;
  permissions: ReadonlySet<Permission>;
  revoked: boolean;
}

const FULL_ACCESS: Permission[] = ['customers:read', 'customers:write', 'invoices:read'];
const READ_ONLY: Permission[] = ['customers:read', 'invoices:read'];

/** The keys a start issues, by a name the tests use. */
const ISSUED = {
  acmeLiveFull: { tenant: 'acme', environment: 'live', permissions: FULL_ACCESS },
  acmeLiveReadOnly: { tenant: 'acme', environment: 'live', permissions: READ_ONLY },
  acmeLiveInvoicesOnly: { tenant: 'acme', environment: 'live', permissions: ['invoices:read'] },
  acmeLiveRevoked: { tenant: 'acme', environment: 'live', permissions: FULL_ACCESS, revoked: true },
  // A valid key issued to be sent over plain HTTP and in URLs by the suite's probes.
  acmeLiveProbe: { tenant: 'acme', environment: 'live', permissions: READ_ONLY },
  acmeTestFull: { tenant: 'acme', environment: 'test', permissions: FULL_ACCESS },
  globexLiveFull: { tenant: 'globex', environment: 'live', permissions: FULL_ACCESS },
  globexTestFull: { tenant: 'globex', environment: 'test', permissions: FULL_ACCESS },
} as const satisfies Record<
  string,
  { tenant: string; environment: Environment; permissions: readonly Permission[]; revoked?: boolean }
>;

export type KeyName = keyof typeof ISSUED;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function randomBase62(length: number): string {
  // 248 = 4 × 62: bytes above it are dropped so that every character is equally likely.
  let text = '';
  while (text.length < length) {
    for (const byte of randomBytes(length)) if (byte < 248 && text.length < length) text += BASE62[byte % 62];
  }
  return text;
}

function digest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export class KeyDirectory {
  readonly #byDigest = new Map<string, KeyRecord>();
  /** The secret of every issued key, for the test that writes the target's environment. */
  readonly secrets: Readonly<Record<KeyName, string>>;

  constructor() {
    const secrets = {} as Record<KeyName, string>;
    for (const [name, issued] of Object.entries(ISSUED) as [KeyName, (typeof ISSUED)[KeyName]][]) {
      const secret = `sk_${issued.environment}_${randomBase62(28)}`;
      secrets[name] = secret;
      this.#byDigest.set(digest(secret), {
        tenant: issued.tenant,
        environment: issued.environment,
        permissions: new Set(issued.permissions),
        revoked: 'revoked' in issued && issued.revoked,
      });
    }
    this.secrets = secrets;
  }

  /** The record of a key that was issued and not revoked, whatever tenant it belongs to. */
  live(key: string): KeyRecord | undefined {
    const record = this.#byDigest.get(digest(key));
    return record && !record.revoked ? record : undefined;
  }
}
