// The client journal: what every client sent, on every listener, so that the client report can
// judge clients against the spec's rules for them (conformance/catalog/client-rules.ts). One bounded ring
// per served tenant and one for requests that name none; the oldest entry gives way, counted.
// Recording keeps to facts that cost little (a pass over the header lines, a timestamp), written
// into a slot of fixed shape that the ring reuses (journal-slot.ts), so that a full ring records a
// request without allocating an entry; the answer is made when the journal is read, and the
// judging happens when a report asks. An entry never holds a key: it names it (key-naming.ts), and
// the URL keeps its path only, redacted like the access log's. What the server decided of a
// request (its site, SNI, route, the `Authorization` header as read) comes with it as its facts
// (http/request-facts.ts), decided once: the journal reads them and works out nothing again.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type {
  Journal as JournalAnswer,
  JournalEntry,
  JournalTenant,
} from '../../schemas/generated/journal.ts';
import { loggableValue } from '../http/access-log.ts';
import { requestProtocol } from '../http/field-lines.ts';
import type { Environment } from '../http/hosts.ts';
import type { RequestFacts, Site } from '../http/request-facts.ts';
import type { TenantData } from '../store/tenant-data.ts';
import { watchBody } from './body-facts.ts';
import { scanHeaders } from './header-scan.ts';
import { KeyNamer, presentedCredential, UNKNOWN_KEY } from './key-naming.ts';
import { clearSlot, JournalSlot, slotAnswer } from './journal-slot.ts';
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

export interface JournalFilter {
  tenant?: string;
  keyId?: string;
  sinceMs?: number;
  untilMs?: number;
}

type Scope = { tenant: string; environment: Environment } | undefined;

export class Journal {
  readonly #capacity: number;
  readonly #data: TenantData;
  readonly #namer: KeyNamer;
  readonly #rings = new Map<string, Ring<JournalSlot>>();
  readonly #maxEntries: number;
  #entries = 0;
  /** Entries written so far, numbering each write of a slot (`JournalSlot.write`). */
  #writes = 0;
  /** Key ids seen on plain HTTP, and when first: exposed until revoked (the panel shows it). */
  readonly #exposed = new Map<string, number>();
  /** Connections opened without SNI that carried a request (so that they are not also recorded bare). */
  readonly #requestedWithoutSni = new WeakSet<object>();

  constructor(options: { data: TenantData; capacity?: number; maxEntries?: number }) {
    this.#capacity = options.capacity ?? DEFAULT_JOURNAL_CAPACITY;
    this.#maxEntries = options.maxEntries ?? MAX_JOURNAL_ENTRIES;
    this.#data = options.data;
    this.#namer = new KeyNamer(options.data.keys);
  }

  /** A request of the HTTPS listener, after its answer. */
  recordApi(req: IncomingMessage, facts: RequestFacts, response: AnswerWritten): void {
    const accepted = facts.keyId !== undefined;
    // A key the pipeline did not accept is described from the request itself (rare, so not hot):
    // its scope, which names the ring, is the tenant API its host names.
    const scope: Scope = accepted ? undefined : scopeOf(facts.address.site);
    const slot = this.#claim(accepted ? facts.tenant : scope?.tenant);
    stamp(slot, req, 'https', response);
    slot.tenant = facts.tenant;
    slot.environment = facts.environment as Environment | undefined;
    slot.host = 'tenant';
    slot.sni = 'match';
    slot.sniName = undefined;
    slot.hostName = undefined;
    slot.authorization = 'bearer';
    slot.key = facts.keyId;
    slot.keyDigest = undefined;
    slot.keyEnvironment = facts.environment as Environment | undefined;
    slot.keyRevoked = false;
    slot.urlCredentials = undefined;
    scanHeaders(req, slot);
    slot.retryAfter = retryAfterOf(response);
    const { behaviour } = facts;
    slot.behaviour = behaviour?.name;
    slot.cut = behaviour?.cut;
    slot.refused = behaviour?.refused === true ? true : undefined;
    // The usual request: a route's own path, no query. Anything else is looked at closely.
    const url = req.url ?? '';
    let urlKey: string | undefined;
    if (url === facts.route) slot.path = url;
    else urlKey = this.#describeUrl(slot, url);
    if (!accepted) this.#describeRejected(req, facts, scope, slot, urlKey, true);
    this.#watchBody(req, slot);
  }

  /** A request of the plain-HTTP listener, which is always rejected. A key it carries is exposed. */
  recordPlain(
    req: IncomingMessage,
    facts: RequestFacts,
    response: { status: number; errorCode?: string },
  ): void {
    const scope = scopeOf(facts.address.site);
    const slot = this.#claim(scope?.tenant);
    stamp(slot, req, 'http', response);
    slot.host = 'missing';
    slot.sni = 'not-applicable';
    slot.sniName = undefined;
    slot.hostName = undefined;
    slot.authorization = 'missing';
    slot.urlCredentials = undefined;
    scanHeaders(req, slot);
    const urlKey = this.#describeUrl(slot, req.url ?? '');
    this.#describeRejected(req, facts, scope, slot, urlKey, false);
    // Identified only to flag it: the plain listener never authenticates with a key.
    if (slot.key !== undefined && slot.key !== UNKNOWN_KEY && !this.#exposed.has(slot.key)) {
      this.#exposed.set(slot.key, slot.timeMs);
    }
    this.#watchBody(req, slot);
  }

  /** A new TLS connection: one without SNI is recorded if it closes without carrying a request. */
  watchConnection(socket: TLSSocket): void {
    if (typeof socket.servername === 'string' && socket.servername !== '') return;
    const opened = Date.now();
    socket.once('close', () => {
      if (this.#requestedWithoutSni.has(socket)) return;
      const slot = this.#claim(undefined);
      clearSlot(slot);
      slot.timeMs = opened;
      slot.transport = 'tls';
      slot.sni = 'missing';
      slot.authorization = 'not-applicable';
    });
  }

  /** When the key `keyId` was first sent over plain HTTP, or undefined if it never was. */
  exposedSince(keyId: string): number | undefined {
    return this.#exposed.get(keyId);
  }

  read(filter: JournalFilter = {}): JournalAnswer {
    const tenants: JournalTenant[] = [];
    const data: JournalSlot[] = [];
    for (const [tenant, ring] of this.#rings) {
      if (filter.tenant !== undefined && filter.tenant !== tenant) continue;
      tenants.push({ tenant, entries: ring.size, dropped: ring.dropped, capacity: ring.capacity });
      data.push(...ring.entries().filter((entry) => matches(entry, filter)));
    }
    data.sort((a, b) => a.timeMs - b.timeMs);
    const fingerprint = (keyDigest: string): string => this.#namer.fingerprint(keyDigest);
    return { object: 'journal', tenants, data: data.map((slot) => slotAnswer(slot, fingerprint)) };
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

  #describeUrl(slot: JournalSlot, url: string): string | undefined {
    const facts = urlFacts(url);
    slot.path = facts.path;
    slot.urlCredentials = facts.urlCredentials;
    if (facts.tenantFields) slot.tenantFields = [...(slot.tenantFields ?? []), ...facts.tenantFields];
    return facts.presentedKey;
  }

  #describeRejected(
    req: IncomingMessage,
    facts: RequestFacts,
    scope: Scope,
    slot: JournalSlot,
    urlKey: string | undefined,
    tls: boolean,
  ): void {
    slot.tenant = scope?.tenant;
    slot.environment = scope?.environment;
    slot.host = hostKind(facts.address.site.hostname, scope);
    if (tls) {
      slot.sni = facts.address.sni;
      if (slot.sni === 'missing') this.#requestedWithoutSni.add(req.socket);
      if (slot.sni === 'mismatch') {
        // What the client put on the wire, for the client report to name both.
        slot.sniName = hostNameOrNot((req.socket as TLSSocket).servername);
        const hostname = facts.address.site.hostname;
        slot.hostName = hostname === undefined ? undefined : hostNameOrNot(hostname);
      }
    }
    const credential = presentedCredential(req, facts.authorization);
    slot.authorization = credential.authorization;
    const token = credential.token ?? urlKey;
    const named = token === undefined ? undefined : this.#namer.name(token, scope);
    slot.key = named?.key;
    slot.keyDigest = named?.keyDigest;
    slot.keyEnvironment = named?.keyEnvironment;
    slot.keyRevoked = named?.keyRevoked;
  }

  /** A body's tenant fields are added to the entry once read, unless its slot was written again. */
  #watchBody(req: IncomingMessage, slot: JournalSlot): void {
    if (!slot.hasBody) return;
    const write = slot.write;
    watchBody(req, (fields) => {
      if (slot.write === write) slot.tenantFields = [...(slot.tenantFields ?? []), ...fields];
    });
  }

  /**
   * The slot of a new entry, in the ring of `tenant` (of no served tenant: the shared one), to be
   * written whole by the caller.
   */
  #claim(tenant: string | undefined): JournalSlot {
    const name = tenant !== undefined && this.#data.account(tenant) !== undefined ? tenant : NO_TENANT;
    let ring = this.#rings.get(name);
    if (!ring) this.#rings.set(name, (ring = new Ring(this.#capacity)));
    // Full in all: the ring makes room itself, or (when it holds nothing) the fullest one does.
    if (this.#entries >= this.#maxEntries && ring.size < ring.capacity) {
      if (ring.dropOldest() || this.#fullestRing()?.dropOldest()) this.#entries -= 1;
    }
    const before = ring.size;
    const slot = ring.claim(newSlot);
    this.#entries += ring.size - before;
    slot.write = ++this.#writes;
    return slot;
  }

  #fullestRing(): Ring<JournalSlot> | undefined {
    let fullest: Ring<JournalSlot> | undefined;
    for (const ring of this.#rings.values()) if (!fullest || ring.size > fullest.size) fullest = ring;
    return fullest;
  }
}

function newSlot(): JournalSlot {
  return new JournalSlot();
}

/** The journal of a server, or undefined when its capacity is 0 (the journal is off). */
export function journalOf(
  capacity: number = DEFAULT_JOURNAL_CAPACITY,
  data: TenantData,
): Journal | undefined {
  return capacity > 0 ? new Journal({ data, capacity }) : undefined;
}

/** An answer as the front door wrote it: status 0 when none was (a behaviour cut the request). */
type AnswerWritten = { status: number; errorCode?: string; headers?: Record<string, string> };

/** The seconds of a 429's or 503's `Retry-After`, when it gives seconds (RFC 9110 §10.2.3). */
function retryAfterOf(response: AnswerWritten): number | undefined {
  if ((response.status !== 429 && response.status !== 503) || !response.headers) return undefined;
  const { headers } = response;
  const value = headers['Retry-After'] ?? headers['retry-after'];
  if (value === undefined || !/^\d{1,9}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** What every entry of a request holds: when, how, and what it was answered. */
function stamp(
  slot: JournalSlot,
  req: IncomingMessage,
  transport: 'https' | 'http',
  response: { status: number; errorCode?: string },
): void {
  slot.timeMs = Date.now();
  slot.transport = transport;
  slot.protocol = requestProtocol(req);
  slot.method = req.method;
  slot.status = response.status;
  slot.errorCode = response.errorCode;
  // Set by recordApi alone; a reused slot must not keep an older entry's.
  slot.retryAfter = undefined;
  slot.behaviour = undefined;
  slot.cut = undefined;
  slot.refused = undefined;
}

/** The tenant API a request's host names, if any. */
function scopeOf(site: Site): Scope {
  return site.kind === 'api' ? site.host : undefined;
}

function hostKind(hostname: string | undefined, scope: Scope): JournalEntry['host'] {
  if (hostname === undefined) return 'missing';
  if (scope) return 'tenant';
  return isIP(hostname.replace(/^\[|\]$/g, '')) !== 0 ? 'ip-literal' : 'other';
}

/**
 * DNS names only, and none with a label the access log would redact (a key's random part, even
 * lower-cased and split over labels): whatever else a client sent in their place is not kept.
 */
const HOST_NAME = /^[a-z0-9.-]{1,253}$/i;
const NOT_A_HOST_NAME = '(not a host name)';

function hostNameOrNot(name: string | false | null | undefined): string {
  if (typeof name !== 'string' || !HOST_NAME.test(name)) return NOT_A_HOST_NAME;
  const lower = name.toLowerCase();
  return lower.split('.').every((label) => loggableValue(label) === label) ? lower : NOT_A_HOST_NAME;
}

function matches(entry: JournalSlot, filter: JournalFilter): boolean {
  return (
    (filter.keyId === undefined || entry.key === filter.keyId) &&
    (filter.sinceMs === undefined || entry.timeMs >= filter.sinceMs) &&
    (filter.untilMs === undefined || entry.timeMs <= filter.untilMs)
  );
}
