// Panel sessions: a random id in a `__Host-` cookie (Secure, HttpOnly, SameSite=Strict, Path=/,
// no Domain, so it is bound to the one panel host that set it), held in memory — a restart signs
// everybody out. Each session has its own CSRF token, which every form carries and every change
// must present. Sign-in replaces the session (id and token), so that an id planted before
// sign-in is worth nothing after it.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = '__Host-panel-session';

export interface Session {
  readonly id: string;
  readonly csrfToken: string;
  /** The panel host the session belongs to: a session is never honoured on another host. */
  readonly hostname: string;
  /** Undefined until sign-in: the anonymous session only carries the sign-in form's CSRF token. */
  readonly userId: string | undefined;
  readonly createdMs: number;
  lastSeenMs: number;
}

export interface SessionLimits {
  /** At most this many sessions are held; the oldest goes first. */
  maxSessions: number;
  /** A session unused this long is over. */
  idleMs: number;
  /** A session is over this long after it began, however used. */
  absoluteMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessions: 10_000,
  idleMs: 30 * 60_000,
  absoluteMs: 8 * 60 * 60_000,
};

export class SessionStore {
  // A Map keeps insertion order, so its first entry is the oldest session.
  readonly #sessions = new Map<string, Session>();
  readonly #limits: SessionLimits;

  constructor(limits: SessionLimits = DEFAULT_SESSION_LIMITS) {
    this.#limits = limits;
  }

  /** The live session the request's cookie names on this host, or undefined. */
  fromRequest(req: IncomingMessage, hostname: string): Session | undefined {
    const id = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const session = id === undefined ? undefined : this.#sessions.get(id);
    if (!session || session.hostname !== hostname) return undefined;
    const now = Date.now();
    if (now - session.lastSeenMs > this.#limits.idleMs || now - session.createdMs > this.#limits.absoluteMs) {
      this.#sessions.delete(session.id);
      return undefined;
    }
    session.lastSeenMs = now;
    return session;
  }

  /** A new session, anonymous or signed in as `userId`; `replaces` (if any) ends. */
  start(hostname: string, userId?: string, replaces?: Session): Session {
    if (replaces) this.#sessions.delete(replaces.id);
    if (this.#sessions.size >= this.#limits.maxSessions) {
      const oldest = this.#sessions.keys().next();
      if (!oldest.done) this.#sessions.delete(oldest.value);
    }
    const now = Date.now();
    const session: Session = {
      id: randomToken(),
      csrfToken: randomToken(),
      hostname,
      userId,
      createdMs: now,
      lastSeenMs: now,
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  end(session: Session): void {
    this.#sessions.delete(session.id);
  }

  /** The `Set-Cookie` value that gives the browser this session. */
  cookieFor(session: Session): string {
    return `${SESSION_COOKIE}=${session.id}; Path=/; Secure; HttpOnly; SameSite=Strict`;
  }

  /** The `Set-Cookie` value that removes the session cookie. */
  clearingCookie(): string {
    return `${SESSION_COOKIE}=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Strict`;
  }
}

/** Whether `presented` is the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(session: Session, presented: string | null | undefined): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(session.csrfToken);
  const actual = Buffer.from(presented);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
