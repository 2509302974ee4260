// Panel sessions: a random id in a `__Host-` cookie (Secure, HttpOnly, SameSite=Strict, Path=/,
// no Domain, so it is bound to the one panel host that set it), held in memory — a restart signs
// everybody out. A session exists only once someone has signed in: the sign-in form is protected
// without one (sign-in-token.ts), so anonymous traffic, however much, creates nothing here and
// can never push a signed-in session out. Each session has its own CSRF token, which every form
// carries and every change must present. Sessions are held per tenant, each tenant's bounded.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = '__Host-panel-session';

export interface Session {
  readonly id: string;
  readonly csrfToken: string;
  /** The panel host the session belongs to: a session is never honoured on another host. */
  readonly hostname: string;
  readonly tenant: string;
  readonly userId: string;
  readonly createdMs: number;
  lastSeenMs: number;
}

export interface SessionLimits {
  /**
   * At most this many sessions of one tenant (both its panels) are held. Only a sign-in of that
   * tenant can go beyond it, and then that tenant's least recently used session goes first.
   */
  maxSessionsPerTenant: number;
  /** A session unused this long is over. */
  idleMs: number;
  /** A session is over this long after it began, however used. */
  absoluteMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessionsPerTenant: 1_000,
  idleMs: 30 * 60_000,
  absoluteMs: 8 * 60 * 60_000,
};

export class SessionStore {
  // Per tenant, a Map in order of last use (a used session is moved to the end), so that the
  // first entry is the least recently used.
  readonly #byTenant = new Map<string, Map<string, Session>>();
  readonly #limits: SessionLimits;

  constructor(limits: SessionLimits = DEFAULT_SESSION_LIMITS) {
    this.#limits = limits;
  }

  /** The live session the request's cookie names on this host of `tenant`, or undefined. */
  fromRequest(req: IncomingMessage, tenant: string, hostname: string): Session | undefined {
    const id = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const sessions = this.#byTenant.get(tenant);
    const session = id === undefined ? undefined : sessions?.get(id);
    if (!sessions || !session || session.hostname !== hostname) return undefined;
    const now = Date.now();
    sessions.delete(session.id);
    if (this.#expired(session, now)) return undefined;
    session.lastSeenMs = now;
    sessions.set(session.id, session);
    return session;
  }

  /** A new session of `userId`, who has just signed in; `replaces` (if any) ends. */
  start(hostname: string, tenant: string, userId: string, replaces?: Session): Session {
    if (replaces) this.end(replaces);
    let sessions = this.#byTenant.get(tenant);
    if (!sessions) this.#byTenant.set(tenant, (sessions = new Map<string, Session>()));
    const now = Date.now();
    if (sessions.size >= this.#limits.maxSessionsPerTenant) {
      for (const held of sessions.values()) if (this.#expired(held, now)) sessions.delete(held.id);
    }
    if (sessions.size >= this.#limits.maxSessionsPerTenant) {
      const leastRecent = sessions.keys().next();
      if (!leastRecent.done) sessions.delete(leastRecent.value);
    }
    const session: Session = {
      id: randomToken(),
      csrfToken: randomToken(),
      hostname,
      tenant,
      userId,
      createdMs: now,
      lastSeenMs: now,
    };
    sessions.set(session.id, session);
    return session;
  }

  end(session: Session): void {
    this.#byTenant.get(session.tenant)?.delete(session.id);
  }

  /** How many sessions of `tenant` are held (expired ones until they are next looked at). */
  count(tenant: string): number {
    return this.#byTenant.get(tenant)?.size ?? 0;
  }

  /** The `Set-Cookie` value that gives the browser this session. */
  cookieFor(session: Session): string {
    return `${SESSION_COOKIE}=${session.id}; Path=/; Secure; HttpOnly; SameSite=Strict`;
  }

  /** The `Set-Cookie` value that removes the session cookie. */
  clearingCookie(): string {
    return `${SESSION_COOKIE}=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Strict`;
  }

  #expired(session: Session, now: number): boolean {
    return (
      now - session.lastSeenMs > this.#limits.idleMs || now - session.createdMs > this.#limits.absoluteMs
    );
  }
}

/** Whether `presented` is `expected`, compared in constant time. */
export function tokensMatch(expected: string, presented: string | null | undefined): boolean {
  if (typeof presented !== 'string') return false;
  const want = Buffer.from(expected);
  const got = Buffer.from(presented);
  return got.length === want.length && timingSafeEqual(got, want);
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
