// API keys as the reference server holds them: never in clear. Each key is kept as its
// HMAC-SHA-256 under a secret of the server (random per process, or persisted in the data
// directory so that HMACs survive a restart), and a presented key is looked up within the
// (tenant, environment) of the request's host — never across tenants. A new key's secret is
// returned once, by `create` or `rotate`, and never kept. In memory the store also indexes each key
// by the plain SHA-256 of its secret, the cheaper digest every request computes (decision 0006).
// Over 300 lines on purpose: one class, because its indexes (by scope, HMAC, digest and id, and
// the count of keys not yet digested) must change together, and only its own methods reach them.
import * as crypto from 'node:crypto';
import type { ApiKey } from '../../schemas/generated/fixtures.ts';
import type { ApiKeyMetadata, NewKeyRequest } from '../../schemas/generated/api-key-management.ts';
import type { KeyStoreRecord } from '../../schemas/generated/key-store.ts';
import type { Environment } from '../http/hosts.ts';
import { secretDigest } from './key-digest.ts';
import { metadataOf, type Entry, type ScopeKeys, type StoredKey } from './key-entries.ts';
import { generateKeySecret, VISIBLE_SUFFIX_LENGTH } from './key-format.ts';
import { permissionsOf } from './key-permissions.ts';

export type KeyStoreChange = 'keys' | 'usage';

export interface CreatedKeyResult {
  key: ApiKeyMetadata;
  /** The key itself: hand it to the person who asked, once, and drop it. */
  secret: string;
}

export class KeyStore {
  // A Map lookup by HMAC does not reveal, by its timing, how much of a key was right: the HMAC
  // under a secret the client never sees is what is compared, not the key.
  readonly #hmacSecret: Buffer;
  /**
   * Tenant, then environment: a request looks its scope up by the tenant name it has already
   * (a string joining the two would be a new string, hashed anew, on every request).
   */
  readonly #byScope = new Map<string, Partial<Record<Environment, ScopeKeys>>>();
  readonly #byId = new Map<string, Entry>();
  #listener: (change: KeyStoreChange) => Promise<void> | void = () => {};
  #lastSave: Promise<void> = Promise.resolve();

  /** @param hmacSecret the HMAC key; a random one per process unless the data directory keeps one. */
  constructor(hmacSecret: Buffer = crypto.randomBytes(32)) {
    this.#hmacSecret = hmacSecret;
  }

  /**
   * Called after every change: 'keys' for a created, revoked or seeded key, 'usage' for a last use.
   * For 'keys' it may return the pending write of the change, which `saved` then waits for.
   */
  onChange(listener: (change: KeyStoreChange) => Promise<void> | void): void {
    this.#listener = listener;
  }

  /**
   * Resolves once every key change so far is written (at once when nothing writes the store);
   * rejects when that write failed. Writes are in order, so the last one covers every earlier change.
   */
  saved(): Promise<void> {
    return this.#lastSave;
  }

  /**
   * Seeds a fixture key. A key already held with the same id, tenant, environment and secret keeps
   * its state (revocation, last use); an edited fixture key replaces the one held.
   */
  add(tenant: string, key: ApiKey): void {
    const hmac = this.#hmac(key.secret);
    const held = this.#byId.get(key.id);
    const unchanged =
      held?.tenant === tenant && held.environment === key.environment && held.record.hmac === hmac;
    if (held && unchanged) {
      if (key.revoked && !held.revoked) this.#revokeEntry(held);
      if (held.digest === undefined) this.#learnDigest(held, secretDigest(key.secret));
      return;
    }
    if (held) this.#remove(held);
    const now = new Date().toISOString();
    this.#insert(
      {
        id: key.id,
        tenant,
        name: key.name,
        environment: key.environment,
        access: key.access,
        ...(key.access === 'custom' ? { permissions: [...(key.permissions ?? [])] } : {}),
        hmac,
        last4: key.secret.slice(-VISIBLE_SUFFIX_LENGTH),
        origin: 'fixture',
        created_at: now,
        last_used_at: null,
        revoked_at: key.revoked ? now : null,
      },
      key.secret,
    );
    this.#keysChanged();
  }

  /** Puts back records read from the store file; no change is reported. */
  load(records: readonly KeyStoreRecord[]): void {
    for (const record of records) {
      const held = this.#byId.get(record.id);
      if (held) this.#remove(held);
      this.#insert(record);
    }
  }

  /** Drops every key `keep` rejects (keys of tenants no longer served, fixture keys no longer in the file). */
  retain(keep: (record: Readonly<KeyStoreRecord>) => boolean): void {
    let removed = false;
    for (const entry of [...this.#byId.values()]) {
      if (!keep(entry.record)) {
        this.#remove(entry);
        removed = true;
      }
    }
    if (removed) this.#keysChanged();
  }

  /** The active key of this tenant and environment that `presented` is, or undefined. */
  find(tenant: string, environment: Environment, presented: string): StoredKey | undefined {
    // Digested first, whatever the scope: a tenant without keys (or no such tenant) must not
    // answer measurably sooner than one with keys.
    const digest = secretDigest(presented);
    const scope = this.#byScope.get(tenant)?.[environment];
    if (!scope) return undefined;
    let key = scope.byDigest.get(digest);
    if (!key && scope.undigested > 0) {
      // A key read from the store file is known by its HMAC alone until it is first presented.
      key = scope.byHmac.get(this.#hmac(presented));
      if (key) this.#learnDigest(key, digest);
    }
    return key && !key.revoked ? key : undefined;
  }

  /**
   * The key of this tenant, in either environment, that `presented` is, revoked or not: only to
   * name it in the client journal (../journal/key-naming.ts), never to authenticate a request. One
   * digest serves both environments; the HMAC only while a scope holds keys not yet digested.
   * @param digest `secretDigest(presented)`, when the caller has it already.
   */
  identify(tenant: string, presented: string, digest = secretDigest(presented)): StoredKey | undefined {
    let hmac: string | undefined;
    const scopes = this.#byScope.get(tenant);
    if (!scopes) return undefined;
    for (const environment of ENVIRONMENTS) {
      const scope = scopes[environment];
      if (!scope) continue;
      const key =
        scope.byDigest.get(digest) ??
        (scope.undigested > 0 ? scope.byHmac.get((hmac ??= this.#hmac(presented))) : undefined);
      if (key) return key;
    }
    return undefined;
  }

  /**
   * How many active keys of this tenant and environment are known by their HMAC alone (read from
   * the store file, not presented since): while there are any, an unknown key costs an HMAC too.
   */
  keysAwaitingDigest(tenant: string, environment: Environment): number {
    return this.#byScope.get(tenant)?.[environment]?.undigested ?? 0;
  }

  /** Records that `key` (as returned by `find`) authenticated a request just now. O(1), no I/O. */
  markUsed(key: StoredKey): void {
    const entry = this.#byId.get(key.id);
    if (!entry) return;
    entry.lastUsedMs = Date.now();
    void this.#listener('usage');
  }

  create(tenant: string, request: NewKeyRequest): CreatedKeyResult {
    const secret = generateKeySecret(request.environment);
    const entry = this.#insert(
      {
        id: this.#newId(),
        tenant,
        name: request.name.trim(),
        environment: request.environment,
        access: request.access,
        ...(request.access === 'custom' ? { permissions: [...(request.permissions ?? [])] } : {}),
        hmac: this.#hmac(secret),
        last4: secret.slice(-VISIBLE_SUFFIX_LENGTH),
        origin: 'created',
        created_at: new Date().toISOString(),
        last_used_at: null,
        revoked_at: null,
      },
      secret,
    );
    this.#keysChanged();
    return { key: metadataOf(entry), secret };
  }

  /** The key `id` of `tenant` (and of `environment`, when given), revoked or not. */
  get(tenant: string, id: string, environment?: Environment): ApiKeyMetadata | undefined {
    const entry = this.#entry(tenant, id, environment);
    return entry && metadataOf(entry);
  }

  /** Every key of `tenant` (of one environment, when given), newest first. Never a secret. */
  list(tenant: string, environment?: Environment): ApiKeyMetadata[] {
    return [...this.#byId.values()]
      .filter((entry) => entry.tenant === tenant && (!environment || entry.environment === environment))
      .sort((a, b) => b.record.created_at.localeCompare(a.record.created_at) || a.id.localeCompare(b.id))
      .map(metadataOf);
  }

  /** Revokes the key at once: `find` stops returning it. Revoking a revoked key changes nothing. */
  revoke(tenant: string, id: string, environment?: Environment): ApiKeyMetadata | undefined {
    const entry = this.#entry(tenant, id, environment);
    if (!entry) return undefined;
    if (!entry.revoked) {
      this.#revokeEntry(entry);
      this.#keysChanged();
    }
    return metadataOf(entry);
  }

  /**
   * A new key with the name, environment and permissions of `id`, which is revoked. A revoked key
   * cannot be rotated ('revoked'): create a new one instead.
   */
  rotate(
    tenant: string,
    id: string,
    environment?: Environment,
  ): (CreatedKeyResult & { revokedKey: ApiKeyMetadata }) | 'revoked' | undefined {
    const entry = this.#entry(tenant, id, environment);
    if (!entry) return undefined;
    if (entry.revoked) return 'revoked';
    const { name, access, permissions } = entry.record;
    const created = this.create(tenant, {
      name,
      environment: entry.environment,
      access,
      ...(permissions ? { permissions: permissions as NewKeyRequest['permissions'] } : {}),
    });
    this.#revokeEntry(entry);
    this.#keysChanged();
    return { ...created, revokedKey: metadataOf(entry) };
  }

  /** What the store file keeps: HMACs and metadata, never a secret. */
  records(): KeyStoreRecord[] {
    return [...this.#byId.values()].map((entry) => ({
      ...entry.record,
      last_used_at: entry.lastUsedMs === null ? null : new Date(entry.lastUsedMs).toISOString(),
    }));
  }

  #keysChanged(): void {
    const write = this.#listener('keys');
    if (!write) return;
    // Handled here so that a failed write nobody waits for does not end the process; `saved`
    // still rejects for whoever waits.
    write.catch(() => {});
    this.#lastSave = write;
  }

  #entry(tenant: string, id: string, environment: Environment | undefined): Entry | undefined {
    const entry = this.#byId.get(id);
    if (!entry || entry.tenant !== tenant) return undefined;
    return environment && entry.environment !== environment ? undefined : entry;
  }

  /** @param secret the key itself, when known (a seeded or new key), to index it by its digest. */
  #insert(record: KeyStoreRecord, secret?: string): Entry {
    const entry: Entry = {
      id: record.id,
      tenant: record.tenant,
      environment: record.environment,
      permissions: permissionsOf(record),
      revoked: record.revoked_at !== null,
      record: { ...record },
      lastUsedMs: record.last_used_at === null ? null : Date.parse(record.last_used_at),
      digest: undefined,
    };
    let scopes = this.#byScope.get(record.tenant);
    if (!scopes) this.#byScope.set(record.tenant, (scopes = {}));
    const scope = (scopes[record.environment] ??= { byHmac: new Map(), byDigest: new Map(), undigested: 0 });
    scope.byHmac.set(record.hmac, entry);
    if (!entry.revoked) scope.undigested += 1;
    this.#byId.set(record.id, entry);
    if (secret !== undefined) this.#learnDigest(entry, secretDigest(secret));
    return entry;
  }

  #learnDigest(entry: Entry, digest: string): void {
    if (entry.digest !== undefined) return;
    const scope = this.#scopeOf(entry);
    if (!entry.revoked) scope.undigested -= 1;
    entry.digest = digest;
    scope.byDigest.set(digest, entry);
  }

  #remove(entry: Entry): void {
    const scope = this.#scopeOf(entry);
    // Only this key's own slots: another key of the scope may hold the same secret (a fixture
    // secret moved to another id between two runs), and its slots stay.
    if (scope.byHmac.get(entry.record.hmac) === entry) scope.byHmac.delete(entry.record.hmac);
    if (entry.digest === undefined) {
      if (!entry.revoked) scope.undigested -= 1;
    } else if (scope.byDigest.get(entry.digest) === entry) {
      scope.byDigest.delete(entry.digest);
    }
    this.#byId.delete(entry.id);
  }

  /** The scope of a key held by the store (#insert made it). */
  #scopeOf(entry: Entry): ScopeKeys {
    const scope = this.#byScope.get(entry.tenant)?.[entry.environment];
    if (!scope) throw new Error(`Key ${entry.id} is held without its scope.`);
    return scope;
  }

  #revokeEntry(entry: Entry): void {
    if (entry.revoked) return;
    if (entry.digest === undefined) this.#scopeOf(entry).undigested -= 1;
    entry.revoked = true;
    entry.record.revoked_at = new Date().toISOString();
  }

  #newId(): string {
    // 16 hex characters (64 bits): a collision is not a practical concern, but an id already
    // held is still never reused. The loop is bounded.
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = `key_${crypto.randomBytes(16).toString('hex').slice(0, 16)}`;
      if (!this.#byId.has(id)) return id;
    }
    throw new Error('Could not draw an unused key id.');
  }

  #hmac(secret: string): string {
    return crypto.createHmac('sha256', this.#hmacSecret).update(secret, 'utf8').digest('base64');
  }
}

const ENVIRONMENTS: readonly Environment[] = ['production', 'sandbox'];
