// The reference server in-process, as the mock behind a client's or SDK's tests: one call, every
// option optional, and back comes what a test needs — each tenant's base URLs, the fixture keys,
// key minting, the CA, a `fetch`, an undici Dispatcher and a node:https Agent that resolve the
// tenant host names and trust the CA, the client journal and the client report (the same code as
// the `client-report` command), and `close()`, which releases every port, timer and file.
//
// What a test file pays on import is kept small (bench/import-cost.ts): undici is loaded the first
// time `fetch` or `dispatcher` is read, the client report's code the first time it is asked for.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { createRequire } from 'node:module';
import { rootCertificates } from 'node:tls';
import type { Agent as UndiciAgent, Dispatcher, fetch as undiciFetch } from 'undici';
import type { Fixtures, Permission } from '../schemas/generated/fixtures.ts';
import type { ClientReport } from '../schemas/generated/client-report.ts';
import type { Journal, JournalEntry } from '../schemas/generated/journal.ts';
import type { CreatedKey, NewKeyRequest } from '../schemas/generated/api-key-management.ts';
import { startReferenceServer, type RunningReferenceServer } from '../reference-server/server.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/store/fixtures.ts';
import { jsonLinesAccessLog } from '../reference-server/http/access-log.ts';
import { lookupWith, type HostMap } from '../conformance/requests/host-map.ts';
import { adminRequester } from './admin-request.ts';
import type { Behaviour, BehaviourState } from './behaviours.ts';
import { selectRequests, type RequestQuery } from './requests.ts';
import { certificateDirectory } from './mock-certificates.ts';

export type { Permission } from '../schemas/generated/fixtures.ts';
export type { ClientReport } from '../schemas/generated/client-report.ts';
export type { Journal, JournalEntry } from '../schemas/generated/journal.ts';

/** Production or sandbox (Development): the two environments of every tenant. */
export type Environment = 'production' | 'sandbox';
/** A key's type: Full Access, Read Only, or Custom with the permissions it names. */
export type KeyAccess = 'full_access' | 'read_only' | 'custom';

export interface ReferenceMockOptions {
  /** Tenants, keys, users and customers: a fixtures file or its content (default: the embedded fixtures). */
  fixtures?: string | Fixtures;
  /**
   * Where the local CA and the server certificate are kept (`ca.crt` is the CA's). Default: this
   * user's certificate cache, a directory of its own under the system's temporary directory, made
   * once and reused by every start. A directory that holds no CA yet gets a copy of the cached
   * ones: a start makes no key either way.
   */
  certDir?: string;
  /**
   * Make a new CA and certificate rather than copy this user's cached ones: in `certDir` when it
   * holds none yet, else in a temporary directory removed by `close()`. Default false.
   */
  freshCertificates?: boolean;
  /** Where minted keys outlive a restart; default: keys are kept in memory only. */
  dataDir?: string;
  /** The `{domain}` of `https://{tenant}.api.{domain}`; default `localhost`. */
  domain?: string;
  /** HTTPS port; default 0, a free one. */
  port?: number;
  /** The plain-HTTP port that rejects everything; default 0 (a free one); `null` turns it off. */
  httpPort?: number | null;
  /** Whether HTTPS offers HTTP/2 beside HTTP/1.1; default true. */
  http2?: boolean;
  /** Requests the client journal keeps per tenant; default 1000. */
  journalSize?: number;
  /** One JSON line per request (never a key); default: no access log. */
  accessLog?: (line: string) => void;
}

/** A tenant's base URLs. */
export interface TenantUrls {
  /** `https://{tenant}.api.{domain}:{port}/v1` */
  production: string;
  /** `https://sandbox-{tenant}.api.{domain}:{port}/v1` */
  sandbox: string;
}

/** A key of the fixtures (public test values) or a minted one. */
export interface MockKey {
  id: string;
  tenant: string;
  environment: Environment;
  access: KeyAccess;
  permissions: readonly Permission[];
  revoked: boolean;
  /** The key itself, for `Authorization: Bearer <secret>`. */
  secret: string;
}

export interface MintKeyRequest {
  tenant: string;
  /** Default `production`. */
  environment?: Environment;
  /** Default `full_access`; `custom` takes `permissions`. */
  access?: KeyAccess;
  permissions?: readonly Permission[];
  /** Its name in the panel; default `minted by a test`. */
  name?: string;
}

/** Which part of the journal: every field optional (RFC 3339 times for since/until). */
export interface JournalWindow {
  tenant?: string;
  keyId?: string;
  since?: string;
  until?: string;
}

export interface ReferenceMock {
  /** Every fixture tenant's base URLs, by tenant id. */
  readonly tenants: Readonly<Record<string, TenantUrls>>;
  /** A tenant's base URL in an environment (default production). */
  baseUrl(tenant: string, environment?: Environment): string;
  /** `http://…` on the plain-HTTP listener (which rejects everything), or undefined when it is off. */
  plainHttpBaseUrl(tenant: string, environment?: Environment): string | undefined;
  /** The admin API (`https://admin.{domain}:{port}/v1`), for key management by hand. */
  readonly adminUrl: string;
  /** The admin API's bearer token (random, for this server only). */
  readonly adminToken: string;
  /** The fixture keys, by key id (`key_acme_prod_full`, …). */
  readonly keys: Readonly<Record<string, MockKey>>;
  /** Makes a new key through the admin API; only this call ever shows its secret. */
  mintKey(request: MintKeyRequest): Promise<MockKey>;
  /** Revokes a key (a fixture key or a minted one). */
  revokeKey(tenant: string, keyId: string): Promise<void>;
  /** PEM of the local CA that signed the server's certificates. */
  readonly ca: string;
  /** The CA certificate's file. */
  readonly caFile: string;
  /** Host names mapped to loopback (`*.localhost` → 127.0.0.1): Node resolves none of them. */
  readonly hosts: HostMap;
  /** undici's fetch through `dispatcher`: tenant hosts resolve, the CA is trusted. */
  readonly fetch: typeof undiciFetch;
  /**
   * For undici and for the `dispatcher` option of fetch, undici's or Node's global one: resolves
   * the tenant hosts, trusts the CA.
   */
  readonly dispatcher: MockDispatcher;
  /** For node:https, axios (`httpsAgent`) and got (`agent.https`): resolves the hosts, trusts the CA. */
  readonly httpsAgent: HttpsAgent;
  /** The client journal: what each client sent (keys by id, never their value). */
  journal(window?: JournalWindow): Promise<Journal>;
  /** Empties the journal (or a window of it), e.g. between tests. */
  clearJournal(window?: JournalWindow): Promise<void>;
  /**
   * Adds behaviours (`rateLimited`, `slowAnswer`, `connectionReset`, `revokeKeyAfter`, … of this
   * package, or plain objects): each answers the tenant API requests it matches in place of the
   * reference's answer, this call's before any earlier one's, until its `times` are spent. The
   * journal names the behaviour that answered each request. Throws, saying what is wrong, on an
   * invalid behaviour.
   */
  use(...behaviours: Behaviour[]): Promise<BehaviourState[]>;
  /** The behaviours in force, with what each has matched and a rotated key's replacement. */
  behaviours(): Promise<BehaviourState[]>;
  /** Removes every behaviour and empties the journal: what a test's `afterEach` calls. */
  reset(): Promise<void>;
  /** The requests of the journal the query selects, oldest first (keys by id, never their value). */
  requests(query?: RequestQuery): Promise<JournalEntry[]>;
  /** The client report of the journal: the verdict and rules of the `client-report` command. */
  clientReport(window?: JournalWindow): Promise<ClientReport>;
  /** Stops the server and releases every port, timer, connection and temporary file. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * The dispatcher type of Node's global `fetch`: the undici-types that @types/node bundles, a major
 * version behind the kit's undici (6 for Node 20 and 22), whose Dispatcher undici 7's is not
 * assignable to (TS2322, through their FormData types). Where the global RequestInit has no
 * `dispatcher` (DOM types, as in this repository's own build), no more than undici's.
 */
type GlobalFetchDispatcher = RequestInit extends { dispatcher?: infer Global } ? NonNullable<Global> : object;

/**
 * undici's Dispatcher, typed as Node's global fetch's too: `fetch(url, { dispatcher })` type-checks
 * with either fetch. At run time it is undici 7's Agent, which Node's fetch accepts.
 */
export type MockDispatcher = Dispatcher & GlobalFetchDispatcher;

/** undici, loaded on first use (CommonJS, so synchronously): about 150 ms of CPU a test file need not pay. */
const loadUndici = (): typeof import('undici') =>
  createRequire(import.meta.url)('undici') as typeof import('undici');

/** The hosts of a domain that Node would not resolve, mapped to loopback. */
function loopbackHosts(domain: string, host: string): HostMap {
  return { [domain]: host, [`*.${domain}`]: host };
}

function fixturesOf(option: ReferenceMockOptions['fixtures']): Fixtures {
  if (option === undefined) return loadFixtures(DEFAULT_FIXTURES_FILE);
  return typeof option === 'string' ? loadFixtures(option) : option;
}

/** Starts the reference server in this process; every option is optional. */
export async function startReferenceMock(options: ReferenceMockOptions = {}): Promise<ReferenceMock> {
  const fixtures = fixturesOf(options.fixtures);
  const domain = options.domain ?? 'localhost';
  const host = '127.0.0.1';
  const adminToken = randomBytes(24).toString('base64url');
  const certificates = await certificateDirectory({
    certDir: options.certDir,
    freshCertificates: options.freshCertificates,
    domain,
  });
  const server: RunningReferenceServer = await startReferenceServer({
    host,
    httpsPort: options.port ?? 0,
    httpPort: options.httpPort === undefined ? 0 : options.httpPort,
    domain,
    fixtures,
    certDir: certificates.directory,
    adminToken,
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.journalSize === undefined ? {} : { journalCapacity: options.journalSize }),
    ...(options.http2 === undefined ? {} : { http2: options.http2 }),
    ...(options.accessLog ? { accessLog: jsonLinesAccessLog(options.accessLog) } : {}),
  }).catch((error: unknown) => {
    if (certificates.temporary) rmSync(certificates.directory, { recursive: true, force: true });
    throw error;
  });
  const ca = readFileSync(server.caPath, 'utf8');
  const hosts = loopbackHosts(domain, host);
  const trusted = [...rootCertificates, ca];
  const httpsAgent = new HttpsAgent({ lookup: lookupWith(hosts), ca: trusted, keepAlive: true });
  let undiciAgent: UndiciAgent | undefined;
  const dispatcher = (): UndiciAgent =>
    (undiciAgent ??= new (loadUndici().Agent)({ connect: { lookup: lookupWith(hosts), ca: trusted } }));
  const boundFetch: typeof undiciFetch = (input, init) =>
    loadUndici().fetch(input, { dispatcher: dispatcher(), ...init });
  const admin = adminRequester(server.adminBaseUrl, adminToken, httpsAgent);
  const windowQuery = (window: JournalWindow = {}): string => {
    const query = new URLSearchParams();
    if (window.tenant !== undefined) query.set('tenant', window.tenant);
    if (window.keyId !== undefined) query.set('key_id', window.keyId);
    if (window.since !== undefined) query.set('since', window.since);
    if (window.until !== undefined) query.set('until', window.until);
    return query.size > 0 ? `?${query}` : '';
  };

  const keys = Object.fromEntries(
    fixtures.tenants.flatMap((tenant) =>
      tenant.keys.map((key) => [
        key.id,
        {
          id: key.id,
          tenant: tenant.id,
          environment: key.environment,
          access: key.access,
          permissions: key.permissions ?? [],
          revoked: key.revoked === true,
          secret: key.secret,
        } satisfies MockKey,
      ]),
    ),
  );
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      await Promise.all([server.close(), undiciAgent?.close()]);
      httpsAgent.destroy();
      if (certificates.temporary) rmSync(certificates.directory, { recursive: true, force: true });
    })());

  return {
    tenants: Object.fromEntries(
      fixtures.tenants.map((tenant) => [
        tenant.id,
        {
          production: server.baseUrl(tenant.id, 'production'),
          sandbox: server.baseUrl(tenant.id, 'sandbox'),
        },
      ]),
    ),
    baseUrl: (tenant, environment = 'production') => server.baseUrl(tenant, environment),
    plainHttpBaseUrl: (tenant, environment = 'production') => server.plainHttpBaseUrl(tenant, environment),
    adminUrl: server.adminBaseUrl,
    adminToken,
    keys,
    mintKey: async (request) => {
      const access = request.access ?? 'full_access';
      const body: NewKeyRequest = {
        name: request.name ?? 'minted by a test',
        environment: request.environment ?? 'production',
        access,
        ...(access === 'custom'
          ? { permissions: [...(request.permissions ?? [])] as NewKeyRequest['permissions'] }
          : {}),
      };
      const created = (await admin(
        'POST',
        `/tenants/${encodeURIComponent(request.tenant)}/keys`,
        body,
      )) as CreatedKey;
      return {
        id: created.key.id,
        tenant: request.tenant,
        environment: created.key.environment,
        access: created.key.access,
        permissions: created.key.permissions,
        revoked: created.key.revoked,
        secret: created.secret,
      };
    },
    revokeKey: async (tenant, keyId) => {
      await admin('POST', `/tenants/${encodeURIComponent(tenant)}/keys/${encodeURIComponent(keyId)}/revoke`);
    },
    ca,
    caFile: server.caPath,
    hosts,
    fetch: boundFetch,
    get dispatcher(): MockDispatcher {
      return dispatcher();
    },
    httpsAgent,
    journal: async (window) => (await admin('GET', `/journal${windowQuery(window)}`)) as Journal,
    clearJournal: async (window) => {
      await admin('DELETE', `/journal${windowQuery(window)}`);
    },
    use: async (...behaviours) => {
      if (behaviours.length === 0) return [];
      const added = (await admin('POST', '/behaviours', { behaviours })) as { data: BehaviourState[] };
      return added.data;
    },
    behaviours: async () => ((await admin('GET', '/behaviours')) as { data: BehaviourState[] }).data,
    reset: async () => {
      await admin('DELETE', '/behaviours');
      await admin('DELETE', '/journal');
    },
    requests: async (query = {}) => {
      const window: JournalWindow = {};
      if (query.tenant !== undefined) window.tenant = query.tenant;
      if (query.keyId !== undefined) window.keyId = query.keyId;
      const journal = (await admin('GET', `/journal${windowQuery(window)}`)) as Journal;
      return selectRequests(journal.data, query);
    },
    clientReport: async (window = {}) => {
      const { buildClientReport } = await import('../conformance/client-report/client-report.ts');
      return buildClientReport(
        { adminUrl: server.adminBaseUrl, adminToken, caFile: server.caPath, filter: window, hosts },
        new Date(),
      );
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
