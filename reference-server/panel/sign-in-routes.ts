// Signing in and out of the panel. Sign-in is throttled per account and per address, and its
// form's CSRF token is bound to a nonce cookie, since there is no session yet.
import type { PageFrame } from './page-layout.ts';
import { signInPage } from './pages.ts';
import { page, redirect, type PanelResponse } from './panel-response.ts';
import { PATHS } from './paths.ts';
import { readForm } from './forms.ts';
import { frameOf, type Visit } from './visit.ts';

export function showSignIn(visit: Visit): PanelResponse {
  if (visit.user) return redirect(PATHS.settings);
  // No session before sign-in: the form's CSRF token is bound to a nonce cookie instead.
  const { nonce, setCookie } = visit.context.signInTokens.nonceFor(visit.req);
  const headers: Record<string, string> = setCookie ? { 'Set-Cookie': setCookie } : {};
  return page(200, signInPage(signInFrame(visit, nonce)), headers);
}

export async function signIn(visit: Visit): Promise<PanelResponse> {
  const { signInTokens, throttle, users, sessions } = visit.context;
  const form = await readForm(visit, (token) => signInTokens.matches(visit.req, visit.host.hostname, token));
  if ('status' in form) return form;
  const email = (form.get('email') ?? '').slice(0, 254);
  const password = form.get('password') ?? '';
  // The form was accepted, so the request holds a well-formed nonce: the page is shown with it again.
  const frame = signInFrame(visit, signInTokens.nonceFor(visit.req).nonce);
  const attempt = { tenant: visit.host.tenant, email, address: visit.req.socket.remoteAddress ?? '' };
  const retryAfter = throttle.retryAfterSeconds(attempt);
  if (retryAfter > 0) {
    // The password is not checked while the account or the address must wait.
    const error = `Too many failed sign-ins. Wait ${retryAfter} second${retryAfter === 1 ? '' : 's'} and try again.`;
    return page(429, signInPage(frame, { error, email }), { 'Retry-After': String(retryAfter) });
  }
  const user = await users.authenticate(visit.host.tenant, email, password);
  if (!user) {
    throttle.failed(attempt);
    // One message for an unknown e-mail and a wrong password: the form tells no account apart.
    return page(
      401,
      signInPage(frame, { error: 'The e-mail or the password is wrong. Check both and try again.', email }),
    );
  }
  throttle.succeeded(attempt);
  const session = sessions.start(visit.host.hostname, visit.host.tenant, user.id, visit.session);
  return redirect(PATHS.settings, {
    'Set-Cookie': [sessions.cookieFor(session), signInTokens.clearingCookie()],
  });
}

function signInFrame(visit: Visit, nonce: string): PageFrame {
  const csrfToken = visit.context.signInTokens.formToken(visit.host.hostname, nonce);
  return { ...frameOf({ ...visit, user: undefined }), csrfToken };
}

export async function signOut(visit: Visit): Promise<PanelResponse> {
  const form = await readForm(visit);
  if ('status' in form) return form;
  if (visit.session) visit.context.sessions.end(visit.session);
  return redirect(PATHS.signIn, { 'Set-Cookie': visit.context.sessions.clearingCookie() });
}
