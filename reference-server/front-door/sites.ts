// The hosts of the HTTPS listener other than the tenant APIs: each tenant's administration panel
// (`{tenant}.{domain}`, `sandbox-{tenant}.{domain}`) and the admin API (`admin.{domain}`). Which
// site a request is for, and whether it was misdirected, is its address (addressing/address.ts).
import type { AdminContext } from '../admin-api/admin-api.ts';
import { AdminTokenCheck } from '../admin-api/admin-token.ts';
import { apiError } from '../http/errors.ts';
import type { Site } from '../http/request-facts.ts';
import type { Journal } from '../journal/journal.ts';
import type { BehaviourTable } from '../behaviours/behaviour-table.ts';
import { SessionStore } from '../panel/sessions.ts';
import { SignInThrottle } from '../panel/sign-in-throttle.ts';
import { SignInTokens } from '../panel/sign-in-token.ts';
import type { UserDirectory } from '../panel/users.ts';
import type { PanelContext } from '../panel/visit.ts';
import type { TenantData } from '../store/tenant-data.ts';
import { respond, type Exchange, type Outlet, type Reply } from './respond.ts';

export interface SiteContexts {
  panel: PanelContext;
  admin: AdminContext;
}

/** The panel's state (sessions, sign-in) and the admin API's, new; `adminToken` absent: the admin API is off. */
export function siteContexts(
  shared: { domain: string; data: TenantData; journal: Journal | undefined; behaviours: BehaviourTable },
  users: UserDirectory,
  adminToken: string | undefined,
): SiteContexts {
  const { domain, data, journal, behaviours } = shared;
  const sessions = new SessionStore();
  const [signInTokens, throttle] = [new SignInTokens(), new SignInThrottle()];
  return {
    panel: { domain, data, users, sessions, journal, signInTokens, throttle },
    admin: {
      data,
      journal,
      behaviours,
      token: adminToken === undefined ? undefined : new AdminTokenCheck(adminToken),
    },
  };
}

/**
 * The panel's and the admin API's handlers, loaded on the first request to either: the API's
 * requests never need them, and a server starts sooner without loading them (pages, forms, the
 * admin API's routes and schemas).
 */
let siteHandlers:
  | Promise<{
      handleAdminRequest: typeof import('../admin-api/admin-api.ts').handleAdminRequest;
      handlePanelRequest: typeof import('../panel/panel.ts').handlePanelRequest;
    }>
  | undefined;

function loadSiteHandlers(): NonNullable<typeof siteHandlers> {
  siteHandlers ??= Promise.all([import('../admin-api/admin-api.ts'), import('../panel/panel.ts')]).then(
    ([admin, panel]) => ({
      handleAdminRequest: admin.handleAdminRequest,
      handlePanelRequest: panel.handlePanelRequest,
    }),
  );
  return siteHandlers;
}

export async function serveSite(
  outlet: Outlet,
  exchange: Exchange,
  site: Site & { kind: 'panel' | 'admin' },
  contexts: SiteContexts,
): Promise<void> {
  try {
    respond(outlet, exchange, await siteReply(exchange, site, contexts));
  } catch {
    // A defect of ours still gets an answer, never a stack trace or a hung socket.
    const by = exchange.res.headersSent ? 'cut' : 'json';
    respond(outlet, exchange, { by, answer: apiError('internal_error') });
  }
}

async function siteReply(
  exchange: Exchange,
  site: Site & { kind: 'panel' | 'admin' },
  contexts: SiteContexts,
): Promise<Reply> {
  const { req, facts } = exchange;
  const { handleAdminRequest, handlePanelRequest } = await loadSiteHandlers();
  if (site.kind === 'admin')
    return { by: 'json', answer: await handleAdminRequest(req, contexts.admin, facts) };
  return { by: 'panel', answer: await handlePanelRequest(req, site.host, contexts.panel, facts) };
}
