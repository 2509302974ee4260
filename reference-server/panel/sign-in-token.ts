// The sign-in form's CSRF protection without a server-side session (OWASP "signed double-submit
// cookie"): the form's page sets a random nonce in the cookie `__Host-panel-sign-in`, and the form
// carries the HMAC of that nonce and the panel host under a secret of this process. A sign-in POST
// must present both, matching. Another site can neither read the cookie nor make the HMAC, and the
// `__Host-` prefix keeps a sibling host from planting a cookie of its own. Nothing is stored: an
// anonymous visitor costs the server no memory. The Origin check (forms.ts) applies as well.
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { PanelHost } from '../http/hosts.ts';
import { PATHS } from './paths.ts';
import { cookieValue, randomToken, tokensMatch, type SessionStore } from './sessions.ts';

export const SIGN_IN_COOKIE = '__Host-panel-sign-in';
const NONCE = /^[A-Za-z0-9_-]{43}$/;

export class SignInTokens {
  readonly #secret = randomBytes(32);

  /**
   * The nonce the request's cookie holds, if well formed, and otherwise a new one with the
   * `Set-Cookie` value that gives it to the browser.
   */
  nonceFor(req: IncomingMessage): { nonce: string; setCookie?: string } {
    const held = presentedNonce(req);
    if (held !== undefined) return { nonce: held };
    const nonce = randomToken();
    return { nonce, setCookie: `${SIGN_IN_COOKIE}=${nonce}; Path=/; Secure; HttpOnly; SameSite=Strict` };
  }

  /** The token the sign-in form carries for this nonce on this host. */
  formToken(hostname: string, nonce: string): string {
    return createHmac('sha256', this.#secret).update(`sign-in\0${hostname}\0${nonce}`).digest('base64url');
  }

  /** Whether the form's token is the one for the request's cookie on this host. */
  matches(req: IncomingMessage, hostname: string, presented: string | null | undefined): boolean {
    const nonce = presentedNonce(req);
    return nonce !== undefined && tokensMatch(this.formToken(hostname, nonce), presented);
  }

  /** The `Set-Cookie` value that removes the nonce (after sign-in it has no use). */
  clearingCookie(): string {
    return `${SIGN_IN_COOKIE}=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Strict`;
  }
}

function presentedNonce(req: IncomingMessage): string | undefined {
  const nonce = cookieValue(req.headers.cookie, SIGN_IN_COOKIE);
  return nonce !== undefined && NONCE.test(nonce) ? nonce : undefined;
}

/**
 * Whether a request to a panel host that waits for `100 Continue` before its body may have it
 * (front-door/expect-continue.ts): one of a signed-in session, or the sign-in form's post with its cookie.
 */
export function panelMayContinue(req: IncomingMessage, host: PanelHost, sessions: SessionStore): boolean {
  if (sessions.fromRequest(req, host.tenant, host.hostname)) return true;
  const path = (req.url ?? '').split('?', 1)[0];
  return path === PATHS.signIn && cookieValue(req.headers.cookie, SIGN_IN_COOKIE) !== undefined;
}
