// The administration panel of a tenant (spec §5 "Obtaining a key"): sign-in, and Settings → API →
// API Keys, which exists only when the feature is enabled for the account and the user may manage
// keys. Every change is a POST that must carry the session's CSRF token and, when the browser
// says where it comes from, come from this panel's own origin.
import type { Journal } from '../journal/journal.ts';
import type { IncomingMessage } from 'node:http';
import type { NewKeyRequest } from '../../schemas/generated/api-key-management.ts';
import { validatorFor } from '../../schemas/validators.ts';
import { apiHostname, type PanelHost } from '../http/hosts.ts';
import { mediaTypeOf, readBody } from '../http/read-body.ts';
import type { RequestFacts } from '../api/request-pipeline.ts';
import { pathOf } from '../http/request-target.ts';
import type { TenantAccount, TenantData } from '../store/tenant-data.ts';
import { PANEL_CSS, PANEL_JS } from './assets.ts';
import {
  errorPage,
  keysPage,
  newKeyNotice,
  PATHS,
  revokedNotice,
  settingsPage,
  signInPage,
  type KeysPageContent,
  type PageFrame,
} from './pages.ts';
import { asset, page, redirect, type PanelResponse } from './panel-response.ts';
import { tokensMatch, type Session, type SessionStore } from './sessions.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';
import type { SignInTokens } from './sign-in-token.ts';
import { keysPageAccess, type PanelUser, type UserDirectory } from './users.ts';

export interface PanelContext {
  domain: string;
  data: TenantData;
  users: UserDirectory;
  sessions: SessionStore;
  /** The client journal, which knows the keys sent over plain HTTP (shown as exposed). */
  journal?: Journal | undefined;
  signInTokens: SignInTokens;
  throttle: SignInThrottle;
}

/** Forms are small; a larger body is refused before it is buffered. */
const MAX_FORM_BYTES = 8 * 1024;
const KEY_ACTION = /^\/settings\/api\/keys\/(key_[a-z0-9_]{1,60})\/(revoke|rotate)$/;
const validateNewKey = validatorFor<NewKeyRequest>(
  'api-key-management.schema.json#/definitions/NewKeyRequest',
);

/** One request to a panel host. */
interface Visit {
  req: IncomingMessage;
  host: PanelHost;
  account: TenantAccount;
  session: Session | undefined;
  user: PanelUser | undefined;
  context: PanelContext;
}

export async function handlePanelRequest(
  req: IncomingMessage,
  host: PanelHost,
  context: PanelContext,
  facts: RequestFacts,
): Promise<PanelResponse> {
  facts.tenant = host.tenant;
  facts.environment = host.environment;
  const path = pathOf(req.url ?? '/');
  const method = req.method ?? '';
  if (path === PATHS.css || path === PATHS.js) {
    if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(undefined, 'GET, HEAD');
    return path === PATHS.css
      ? asset('text/css; charset=utf-8', PANEL_CSS)
      : asset('text/javascript; charset=utf-8', PANEL_JS);
  }
  const account = context.data.account(host.tenant);
  if (!account) return page(404, errorPage(undefined, 'Not found', 'No account is served at this address.'));
  const session = context.sessions.fromRequest(req, host.tenant, host.hostname);
  const signedIn = session === undefined ? undefined : context.users.get(session.userId);
  const user = signedIn?.tenant === host.tenant ? signedIn : undefined;
  const visit: Visit = { req, host, account, session, user, context };

  switch (path) {
    case PATHS.home:
      return method === 'GET' || method === 'HEAD'
        ? redirect(user ? PATHS.settings : PATHS.signIn)
        : methodNotAllowed(visit, 'GET, HEAD');
    case PATHS.signIn:
      if (method === 'GET' || method === 'HEAD') return showSignIn(visit);
      return method === 'POST' ? signIn(visit) : methodNotAllowed(visit, 'GET, HEAD, POST');
    case PATHS.signOut:
      return method === 'POST' ? signOut(visit) : methodNotAllowed(visit, 'POST');
  }
  // Everything below needs a signed-in user.
  if (!user || !session) {
    if (method === 'GET' || method === 'HEAD') return redirect(PATHS.signIn);
    return csrfFailure(undefined);
  }
  const signedInVisit = { ...visit, user, session };
  if (path === PATHS.settings) {
    return method === 'GET' || method === 'HEAD'
      ? page(200, settingsPage(frameOf(signedInVisit)))
      : methodNotAllowed(visit, 'GET, HEAD');
  }
  if (path === PATHS.api || path === PATHS.keys || KEY_ACTION.test(path)) {
    return keysRoute(signedInVisit, path, method, facts);
  }
  return page(404, errorPage(frameOf(visit), 'Not found', 'There is no page at this address.'));
}

type SignedInVisit = Visit & { user: PanelUser; session: Session };

async function keysRoute(
  visit: SignedInVisit,
  path: string,
  method: string,
  facts: RequestFacts,
): Promise<PanelResponse> {
  // The page's existence is decided first: for a disabled account or a member, every URL under
  // it answers the same 404 or 403, whatever the method or the form.
  const access = keysPageAccess(visit.account, visit.user);
  if (access === 'feature-disabled') {
    return page(404, errorPage(frameOf(visit), 'Not found', 'There is no page at this address.'));
  }
  if (access === 'not-permitted') {
    return page(
      403,
      errorPage(
        frameOf(visit),
        'Not allowed',
        'Managing API keys needs the admin role. Ask an admin of this account.',
      ),
    );
  }
  if (path === PATHS.api) {
    return method === 'GET' || method === 'HEAD'
      ? redirect(PATHS.keys)
      : methodNotAllowed(visit, 'GET, HEAD');
  }
  if (path === PATHS.keys) {
    if (method === 'GET' || method === 'HEAD') return listKeys(visit);
    if (method !== 'POST') return methodNotAllowed(visit, 'GET, HEAD, POST');
    const form = await readForm(visit);
    if ('status' in form) return form;
    return createKey(visit, form, facts);
  }
  if (method !== 'POST') return methodNotAllowed(visit, 'POST');
  const [, id = '', action] = KEY_ACTION.exec(path) ?? [];
  facts.keyId = id;
  const form = await readForm(visit);
  if ('status' in form) return form;
  return action === 'revoke' ? revokeKey(visit, id) : rotateKey(visit, id);
}

function showSignIn(visit: Visit): PanelResponse {
  if (visit.user) return redirect(PATHS.settings);
  // No session before sign-in: the form's CSRF token is bound to a nonce cookie instead.
  const { nonce, setCookie } = visit.context.signInTokens.nonceFor(visit.req);
  const headers: Record<string, string> = setCookie ? { 'Set-Cookie': setCookie } : {};
  return page(200, signInPage(signInFrame(visit, nonce)), headers);
}

async function signIn(visit: Visit): Promise<PanelResponse> {
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

async function signOut(visit: Visit): Promise<PanelResponse> {
  const form = await readForm(visit);
  if ('status' in form) return form;
  if (visit.session) visit.context.sessions.end(visit.session);
  return redirect(PATHS.signIn, { 'Set-Cookie': visit.context.sessions.clearingCookie() });
}

function listKeys(visit: SignedInVisit): PanelResponse {
  const revokedId = new URLSearchParams((visit.req.url ?? '').split('?')[1] ?? '').get('revoked');
  const revoked = revokedId
    ? visit.context.data.keys.get(visit.host.tenant, revokedId, visit.host.environment)
    : undefined;
  return keysResponse(visit, 200, { notice: revoked?.revoked ? revokedNotice(revoked) : undefined });
}

async function createKey(
  visit: SignedInVisit,
  form: URLSearchParams,
  facts: RequestFacts,
): Promise<PanelResponse> {
  const access = form.get('access') ?? '';
  const permissions = form.getAll('permissions');
  const request: unknown = {
    name: (form.get('name') ?? '').trim(),
    environment: visit.host.environment,
    access,
    ...(access === 'custom' ? { permissions } : {}),
  };
  if (!validateNewKey(request)) {
    return keysResponse(visit, 400, {
      formError: formErrorOf(validateNewKey.errors?.[0]?.instancePath ?? ''),
      formValues: { name: form.get('name') ?? '', access, permissions },
    });
  }
  const created = visit.context.data.keys.create(visit.host.tenant, request);
  facts.keyId = created.key.id;
  // The new key is on disk before its secret is shown.
  await visit.context.data.keys.saved();
  return keysResponse(visit, 201, { notice: newKeyNotice(created.key, created.secret) });
}

async function revokeKey(visit: SignedInVisit, id: string): Promise<PanelResponse> {
  const revoked = visit.context.data.keys.revoke(visit.host.tenant, id, visit.host.environment);
  if (!revoked) return keyNotFound(visit);
  await visit.context.data.keys.saved();
  return redirect(`${PATHS.keys}?revoked=${encodeURIComponent(revoked.id)}`);
}

async function rotateKey(visit: SignedInVisit, id: string): Promise<PanelResponse> {
  const rotated = visit.context.data.keys.rotate(visit.host.tenant, id, visit.host.environment);
  if (!rotated) return keyNotFound(visit);
  await visit.context.data.keys.saved();
  if (rotated === 'revoked') {
    return keysResponse(visit, 409, {
      formError: 'That key is revoked and cannot be rotated. Create a new key instead.',
    });
  }
  return keysResponse(visit, 201, { notice: newKeyNotice(rotated.key, rotated.secret, rotated.revokedKey) });
}

function keyNotFound(visit: SignedInVisit): PanelResponse {
  return keysResponse(visit, 404, {
    formError: 'No key with that id exists on this panel. It may belong to the other environment.',
  });
}

function keysResponse(
  visit: SignedInVisit,
  status: number,
  content: Omit<KeysPageContent, 'keys' | 'apiBaseUrl' | 'exposedKeyIds'>,
): PanelResponse {
  const { tenant, environment } = visit.host;
  const keys = visit.context.data.keys.list(tenant, environment);
  const { journal } = visit.context;
  const exposedKeyIds = new Set(
    keys.filter((key) => !key.revoked && journal?.exposedSince(key.id) !== undefined).map((key) => key.id),
  );
  const port = /:(\d+)$/.exec(visit.req.headers.host ?? '')?.[1];
  const apiBaseUrl = `https://${apiHostname(tenant, environment, visit.context.domain)}${port ? `:${port}` : ''}/v1`;
  return page(status, keysPage(frameOf(visit), { ...content, keys, apiBaseUrl, exposedKeyIds }));
}

/**
 * The form of a POST, once its origin and CSRF token are checked; or the response refusing it.
 * The token is the session's (a POST can never start a session), or what `tokenValid` accepts.
 */
async function readForm(
  visit: Visit,
  tokenValid: (token: string | null) => boolean = (token) =>
    visit.session !== undefined && tokensMatch(visit.session.csrfToken, token),
): Promise<URLSearchParams | PanelResponse> {
  if (!sameOrigin(visit.req)) return csrfFailure(visit);
  if (mediaTypeOf(visit.req) !== 'application/x-www-form-urlencoded') {
    return page(
      415,
      errorPage(frameOf(visit), 'Unsupported form', 'Send the form as application/x-www-form-urlencoded.'),
    );
  }
  const body = await readBody(visit.req, MAX_FORM_BYTES);
  if (body.kind === 'too-large') {
    return page(
      413,
      errorPage(frameOf(visit), 'Form too large', 'The form is larger than this panel accepts.'),
      {
        Connection: 'close',
      },
    );
  }
  if (body.kind === 'aborted')
    return page(400, errorPage(frameOf(visit), 'Incomplete form', 'The form did not arrive whole.'));
  const form = new URLSearchParams(body.body.toString('utf8'));
  if (!tokenValid(form.get('csrf_token'))) return csrfFailure(visit);
  return form;
}

/** A change must come from this panel: a cross-site browser request is refused even with a token. */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `https://${req.headers.host ?? ''}`) return false;
  const site = req.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

function csrfFailure(visit: Visit | undefined): PanelResponse {
  return page(
    403,
    errorPage(
      visit && frameOf(visit),
      'Request refused',
      'This form has expired or did not come from this panel. Go back, reload the page, and try again.',
    ),
  );
}

function methodNotAllowed(visit: Visit | undefined, allow: string): PanelResponse {
  return page(
    405,
    errorPage(visit && frameOf(visit), 'Method not allowed', `This address accepts ${allow} only.`),
    {
      Allow: allow,
    },
  );
}

function frameOf(visit: Visit): PageFrame {
  return {
    account: visit.account,
    environment: visit.host.environment,
    user: visit.user,
    csrfToken: visit.session?.csrfToken ?? '',
    showKeys: visit.user !== undefined && keysPageAccess(visit.account, visit.user) === 'allowed',
  };
}

/** What to fix in the creation form, from the first schema error's JSON pointer. */
function formErrorOf(pointer: string): string {
  if (pointer.startsWith('/name'))
    return 'Name: give 1 to 100 characters, not only spaces and no control characters.';
  if (pointer.startsWith('/access')) return 'Type: choose Read Only, Full Access or Chosen permissions.';
  return 'Chosen permissions: tick at least one permission, or choose Read Only or Full Access.';
}
