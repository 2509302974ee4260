// The people who sign in to a tenant's panel (fixtures `users`, whose passwords are public test
// values) and what their role lets them do. Sign-in compares scrypt hashes, never the passwords.
import { randomBytes, scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto';
import type { Fixtures, Role } from '../../schemas/generated/fixtures.ts';
import type { TenantAccount } from '../store/tenant-data.ts';

export interface PanelUser {
  id: string;
  tenant: string;
  email: string;
  name: string;
  role: Role;
}

interface Credential {
  user: PanelUser;
  salt: Buffer;
  hash: Buffer;
}

/** scrypt's recommended interactive cost (N = 2^14, r = 8, p = 1): about 30 ms per check. */
const SCRYPT_OPTIONS: ScryptOptions = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const HASH_BYTES = 32;
/** Longer input is refused before hashing, so that sign-in cost is bounded. */
export const MAX_PASSWORD_LENGTH = 128;

function scryptHash(password: BinaryLike, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, HASH_BYTES, SCRYPT_OPTIONS, (error, hash) =>
      error ? reject(error) : resolve(hash),
    ),
  );
}

interface Account {
  user: PanelUser;
  password: string;
}

export class UserDirectory {
  readonly #accounts: readonly Account[];
  readonly #byId: ReadonlyMap<string, PanelUser>;
  /**
   * The hashes, made together at the first sign-in rather than at start-up: each scrypt call
   * holds 16 MiB, and the allocator keeps that memory after a batch of them, which at start-up
   * would nearly double the resting size of a server nobody signs in to. All at once, so the first
   * sign-in costs the same whichever email it names.
   */
  #credentials: Promise<{ byTenantAndEmail: ReadonlyMap<string, Credential>; decoy: Credential }> | undefined;

  private constructor(accounts: Account[]) {
    this.#accounts = accounts;
    this.#byId = new Map(accounts.map(({ user }) => [user.id, user]));
  }

  static fromFixtures(fixtures: Fixtures): Promise<UserDirectory> {
    const accounts = fixtures.tenants.flatMap((tenant) =>
      (tenant.users ?? []).map((user) => ({
        user: { id: user.id, tenant: tenant.id, email: user.email, name: user.name, role: user.role },
        password: user.password,
      })),
    );
    return Promise.resolve(new UserDirectory(accounts));
  }

  #hashed(): Promise<{ byTenantAndEmail: ReadonlyMap<string, Credential>; decoy: Credential }> {
    this.#credentials ??= (async () => {
      const hashed = async ({ user, password }: Account): Promise<Credential> => {
        const salt = randomBytes(16);
        return { user, salt, hash: await scryptHash(password, salt) };
      };
      const decoyUser: PanelUser = { id: 'usr_decoy', tenant: '', email: '', name: '', role: 'member' };
      const [decoy, credentials] = await Promise.all([
        hashed({ user: decoyUser, password: randomBytes(16).toString('hex') }),
        Promise.all(this.#accounts.map(hashed)),
      ]);
      return {
        byTenantAndEmail: new Map(
          credentials.map((entry) => [lookupKey(entry.user.tenant, entry.user.email), entry]),
        ),
        // Checked when the email is unknown, so that the answer takes as long as for a known one.
        decoy,
      };
    })();
    return this.#credentials;
  }

  /** The user of `tenant` with this email and password, or undefined — the same way for any wrong part. */
  async authenticate(tenant: string, email: string, password: string): Promise<PanelUser | undefined> {
    if (password.length > MAX_PASSWORD_LENGTH) return undefined;
    const { byTenantAndEmail, decoy } = await this.#hashed();
    const known = byTenantAndEmail.get(lookupKey(tenant, email));
    const credential = known ?? decoy;
    const presented = await scryptHash(password, credential.salt);
    return timingSafeEqual(presented, credential.hash) && known ? known.user : undefined;
  }

  get(id: string): PanelUser | undefined {
    return this.#byId.get(id);
  }
}

/** Whether Settings → API → API Keys exists for this user, and if not, why. */
export type KeysPageAccess = 'allowed' | 'feature-disabled' | 'not-permitted';

export function keysPageAccess(account: TenantAccount, user: PanelUser): KeysPageAccess {
  // The spec (§5 "Obtaining a key"): only when the feature is enabled for the account and the
  // user has the needed permission. The feature comes first: for a disabled account the page does
  // not exist for anyone (404), while a member of an enabled account is refused it (403).
  if (!account.apiKeysEnabled) return 'feature-disabled';
  return user.role === 'admin' ? 'allowed' : 'not-permitted';
}

function lookupKey(tenant: string, email: string): string {
  return `${tenant}\0${email.trim().toLowerCase()}`;
}
