// The client journal: what every client sent, on every listener, so that the client report can
// judge clients against the spec's rules for them (conformance/client-rules.ts). One bounded ring
// per served tenant and one for requests that name none; the oldest entry gives way, counted.
// Recording keeps to facts that cost little (a pass over the header lines, a timestamp); the
// judging happens later, when a report asks. An entry never holds a key: it names it
// (key-naming.ts), and the URL keeps its path only, redacted like the access log's.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type {
  Journal as JournalAnswer,
  JournalEntry,
  JournalTenant,
} from '../../schemas/generated/journal.ts';
import { requestHostname } from '../http/field-lines.ts';
import { resolveApiHost, type Environment } from '../http/hosts.ts';
import { findRoute, sniMatches, type RequestFacts } from '../api/request-pipeline.ts';
import type { TenantData } from '../store/tenant-data.ts';
import { watchBody } from './body-facts.ts';
import { scanHeaders } from './header-scan.ts';
import { KeyNamer, presentedCredential, UNKNOWN_KEY } from './key-naming.ts';
import { Ring } from './ring.ts';
import { urlFacts } from './url-facts.ts';

/** Entries kept per tenant (and for requests of no served tenant). */
export const DEFAULT_JOURNAL_CAPACITY = 1_000;
/**
 * Entries kept in all, whatever the number of tenants: with 10 000 tenants the per-tenant bound
 * alone would allow ten million entries.
 */
export const MAX_JOURNAL_ENTRIES = 100_000;
/** The journal of requests that named no served tenant. */
export const NO_TENANT = '(none)';

/**
 * An entry as held: the time as a number, turned into text only when read, and an unknown key's
 * digest in place of its fingerprint, which is made from it when read (key-naming.ts).
 */
export type RecordedEntry = Omit<JournalEntry, 'time' | 'keyFingerprint'> & {
  timeMs: number;
  keyDigest?: string | undefined;
};

export interface JournalFilter {
  tenant?: string;
  keyId?: string;
  sinceMs?: number;
  untilMs?: number;
}

type Scope = { tenant: string; environment: Environment } | undefined;

export class Journal {
  readonly #capacity: number;
  readonly #domain: string;
  readonly #data: TenantData;
  readonly #namer: KeyNamer;
  readonly #rings = new Map<string, Ring<RecordedEntry>>();
  readonly #maxEntries: number;
  #entries = 0;
  /** Key ids seen on plain HTTP, and when first: exposed until revoked (the panel shows it). */
  readonly #exposed = new Map<string, number>();
  /** Connections opened without SNI that carried a request (so that they are not also recorded bare). */
  readonly #requestedWithoutSni = new WeakSet<object>();

  constructor(options: { domain: string; data: TenantData; capacity?: number; maxEntries?: number }) {
    this.#capacity = options.capacity ?? DEFAULT_JOURNAL_CAPACITY;
    this.#maxEntries = options.maxEntries ?? MAX_JOURNAL_ENTRIES;
    this.#domain = options.domain;
    this.#data = options.data;
    this.#namer = new KeyNamer(options.data.keys);
  }

  /** A request of the HTTPS API listener, after its answer. `facts` are the pipeline's. */
  recordApi(
    req: IncomingMessage,
    hostname: string | undefined,
    facts: RequestFacts,
    response: { status: number; errorCode?: string },
  ): void {
    const headers = scanHeaders(req);
    const entry: RecordedEntry = {
      timeMs: Date.now(),
      transport: 'https',
      tenant: facts.tenant,
      environment: facts.environment as Environment | undefined,
      host: 'tenant',
      sni: 'match',
      method: req.method,
      path: '',
      status: response.status,
      errorCode: response.errorCode,
      userAgent: headers.userAgent,
      authorization: 'bearer',
      key: facts.keyId,
      keyDigest: undefined,
      keyEnvironment: facts.environment as Environment | undefined,
      keyRevoked: false,
      contentType: headers.contentType,
      accept: headers.accept,
      hasBody: headers.hasBody,
      urlCredentials: undefined,
      tenantFields: headers.tenantFields,
    };
    // The usual request: a route's own path, no query. Anything else is looked at closely.
    const url = req.url ?? '';
    const urlKey = findRoute(url) ? ((entry.path = url), undefined) : this.#describeUrl(entry, url);
    // A key the pipeline did not accept is described from the request itself (rare, so not hot).
    if (facts.keyId === undefined) this.#describeRejected(req, hostname, entry, urlKey, true);
    this.#finish(req, entry);
  }

  /** A request of the plain-HTTP listener, which is always rejected. A key it carries is exposed. */
  recordPlain(req: IncomingMessage, response: { status: number; errorCode?: string }): void {
    const headers = scanHeaders(req);
    const entry: RecordedEntry = {
      timeMs: Date.now(),
      transport: 'http',
      host: 'missing',
      sni: 'not-applicable',
      method: req.method,
      path: '',
      status: response.status,
      errorCode: response.errorCode,
      userAgent: headers.userAgent,
      authorization: 'missing',
      contentType: headers.contentType,
      accept: headers.accept,
      hasBody: headers.hasBody,
      tenantFields: headers.tenantFields,
    };
    const urlKey = this.#describeUrl(entry, req.url ?? '');
    this.#describeRejected(req, requestHostname(req), entry, urlKey, false);
    // Identified only to flag it: the plain listener never authenticates with a key.
    if (entry.key !== undefined && entry.key !== UNKNOWN_KEY && !this.#exposed.has(entry.key)) {
      this.#exposed.set(entry.key, entry.timeMs);
    }
    this.#finish(req, entry);
  }

  /** A new TLS connection: one without SNI is recorded if it closes without carrying a request. */
  watchConnection(socket: TLSSocket): void {
    if (typeof socket.servername === 'string' && socket.servername !== '') return;
    const opened = Date.now();
    socket.once('close', () => {
      if (this.#requestedWithoutSni.has(socket)) return;
      this.#push({
        timeMs: opened,
        transport: 'tls',
        host: 'missing',
        sni: 'missing',
        authorization: 'not-applicable',
        contentType: 'missing',
        accept: 'missing',
        hasBody: false,
      });
    });
  }

  /** When the key `keyId` was first sent over plain HTTP, or undefined if it never was. */
  exposedSince(keyId: string): number | undefined {
    return this.#exposed.get(keyId);
  }

  read(filter: JournalFilter = {}): JournalAnswer {
    const tenants: JournalTenant[] = [];
    const data: RecordedEntry[] = [];
    for (const [tenant, ring] of this.#rings) {
      if (filter.tenant !== undefined && filter.tenant !== tenant) continue;
      tenants.push({ tenant, entries: ring.size, dropped: ring.dropped, capacity: ring.capacity });
      data.push(...ring.entries().filter((entry) => matches(entry, filter)));
    }
    data.sort((a, b) => a.timeMs - b.timeMs);
    return { object: 'journal', tenants, data: data.map((entry) => this.#entryAnswer(entry)) };
  }

  /** Forgets the entries `filter` selects; returns how many. Exposure marks stay until revocation. */
  remove(filter: JournalFilter = {}): number {
    let removed = 0;
    for (const [tenant, ring] of this.#rings) {
      if (filter.tenant !== undefined && filter.tenant !== tenant) continue;
      removed += ring.retain((entry) => !matches(entry, filter));
    }
    this.#entries -= removed;
    return removed;
  }

  /** An entry as the admin API answers it: the time as text, the fingerprint, no field that is not set. */
  #entryAnswer(entry: RecordedEntry): JournalEntry {
    const { timeMs, ...facts } = entry;
    const answer: Record<string, unknown> = { time: new Date(timeMs).toISOString() };
    for (const [name, value] of Object.entries(facts)) {
      if (value === undefined) continue;
      // In the fingerprint's place, so that the fields keep their order.
      if (name === 'keyDigest') answer.keyFingerprint = this.#namer.fingerprint(value as string);
      else answer[name] = value;
    }
    return answer as unknown as JournalEntry;
  }

  #describeUrl(entry: RecordedEntry, url: string): string | undefined {
    const facts = urlFacts(url);
    entry.path = facts.path;
    entry.urlCredentials = facts.urlCredentials;
    if (facts.tenantFields) entry.tenantFields = [...(entry.tenantFields ?? []), ...facts.tenantFields];
    return facts.presentedKey;
  }

  #describeRejected(
    req: IncomingMessage,
    hostname: string | undefined,
    entry: RecordedEntry,
    urlKey: string | undefined,
    tls: boolean,
  ): void {
    const scope: Scope = hostname === undefined ? undefined : resolveApiHost(hostname, this.#domain);
    entry.tenant = scope?.tenant;
    entry.environment = scope?.environment;
    entry.host = hostKind(hostname, scope);
    if (tls) {
      const servername = (req.socket as TLSSocket).servername;
      const sniSent = typeof servername === 'string' && servername !== '';
      entry.sni = !sniSent
        ? 'missing'
        : hostname !== undefined && sniMatches(req, hostname)
          ? 'match'
          : 'mismatch';
      if (!sniSent) this.#requestedWithoutSni.add(req.socket);
    }
    const credential = presentedCredential(req);
    entry.authorization = credential.authorization;
    const token = credential.token ?? urlKey;
    const named = token === undefined ? undefined : this.#namer.name(token, scope);
    entry.key = named?.key;
    entry.keyDigest = named?.keyDigest;
    entry.keyEnvironment = named?.keyEnvironment;
    entry.keyRevoked = named?.keyRevoked;
  }

  #finish(req: IncomingMessage, entry: RecordedEntry): void {
    if (entry.hasBody) {
      watchBody(req, (fields) => (entry.tenantFields = [...(entry.tenantFields ?? []), ...fields]));
    }
    this.#push(entry);
  }

  #push(entry: RecordedEntry): void {
    const tenant =
      entry.tenant !== undefined && this.#data.account(entry.tenant) !== undefined ? entry.tenant : NO_TENANT;
    let ring = this.#rings.get(tenant);
    if (!ring) this.#rings.set(tenant, (ring = new Ring(this.#capacity)));
    // Full in all: the ring makes room itself, or (when it holds nothing) the fullest one does.
    if (this.#entries >= this.#maxEntries && ring.size < ring.capacity) {
      if (ring.dropOldest() || this.#fullestRing()?.dropOldest()) this.#entries -= 1;
    }
    const before = ring.size;
    ring.push(entry);
    this.#entries += ring.size - before;
  }

  #fullestRing(): Ring<RecordedEntry> | undefined {
    let fullest: Ring<RecordedEntry> | undefined;
    for (const ring of this.#rings.values()) if (!fullest || ring.size > fullest.size) fullest = ring;
    return fullest;
  }
}

/** The journal of a server, or undefined when its capacity is 0 (the journal is off). */
export function journalOf(
  capacity: number = DEFAULT_JOURNAL_CAPACITY,
  domain: string,
  data: TenantData,
): Journal | undefined {
  return capacity > 0 ? new Journal({ domain, data, capacity }) : undefined;
}

function hostKind(hostname: string | undefined, scope: Scope): JournalEntry['host'] {
  if (hostname === undefined) return 'missing';
  if (scope) return 'tenant';
  return isIP(hostname.replace(/^\[|\]$/g, '')) !== 0 ? 'ip-literal' : 'other';
}

function matches(entry: RecordedEntry, filter: JournalFilter): boolean {
  return (
    (filter.keyId === undefined || entry.key === filter.keyId) &&
    (filter.sinceMs === undefined || entry.timeMs >= filter.sinceMs) &&
    (filter.untilMs === undefined || entry.timeMs <= filter.untilMs)
  );
}
