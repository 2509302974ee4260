// Cookies a deployment sets on its answers. A load balancer's sticky-session cookies (AWSALB and
// AWSALBCORS, as AWS's Application Load Balancer sets them on every answer) name a backend, not
// a client: harmless, and the suite must not let them change what it sends. A session cookie
// that authenticates without the Authorization header is a defect (spec §5 Scheme 1: every
// request carries the key in Authorization): the app of `session` issues one after a request
// authenticated by a key, and later takes it, without Authorization, as that key on any host.
import { randomBytes } from 'node:crypto';
import type { KeyRecord } from './directory.ts';

export type CookieChoice = 'none' | 'sticky-balancer' | 'session';

/** What AWS's Application Load Balancer sets: a week-long cookie naming the backend, twice. */
export function stickyBalancerCookies(): string[] {
  const value = randomBytes(24).toString('base64');
  const expires = new Date(Date.now() + 7 * 24 * 3600 * 1000).toUTCString();
  return [
    `AWSALB=${value}; Expires=${expires}; Path=/`,
    `AWSALBCORS=${value}; Expires=${expires}; Path=/; SameSite=None; Secure`,
  ];
}

export const SESSION_COOKIE = 'sid';

/** The sessions of the `session` defect: a cookie value for the key record it was issued to. */
export class Sessions {
  readonly #records = new Map<string, KeyRecord>();

  /** A new session for `record`, as the Set-Cookie field that hands it out (for every tenant's host). */
  issue(record: KeyRecord, domain: string): string {
    const id = randomBytes(18).toString('base64url');
    this.#records.set(id, record);
    return `${SESSION_COOKIE}=${id}; Domain=api.${domain}; Path=/; Secure; HttpOnly`;
  }

  /** The key record of the session named by the request's Cookie fields, if any. */
  holder(cookieFields: readonly string[] | undefined): KeyRecord | undefined {
    for (const field of cookieFields ?? [])
      for (const pair of field.split(';')) {
        const [name, value = ''] = pair.trim().split('=');
        const record = name === SESSION_COOKIE ? this.#records.get(value) : undefined;
        if (record) return record;
      }
    return undefined;
  }
}
