// The administration panel of a tenant (spec §5 "Obtaining a key"): sign-in, and Settings → API →
// API Keys, which exists only when the feature is enabled for the account and the user may manage
// keys. This module routes a request to its page: assets and sign-in first, everything else only
// for a signed-in user of the host's tenant.
import type { IncomingMessage } from 'node:http';
import type { RequestFacts } from '../http/request-facts.ts';
import type { PanelHost } from '../http/hosts.ts';
import { pathOf } from '../http/request-target.ts';
import { PANEL_CSS, PANEL_JS } from './assets.ts';
import { KEY_ACTION, keysRoute } from './keys-routes.ts';
import { errorPage } from './page-layout.ts';
import { settingsPage } from './pages.ts';
import { asset, page, redirect, type PanelResponse } from './panel-response.ts';
import { PATHS } from './paths.ts';
import { csrfFailure, methodNotAllowed } from './refusals.ts';
import { showSignIn, signIn, signOut } from './sign-in-routes.ts';
import { frameOf, type PanelContext, type Visit } from './visit.ts';

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
