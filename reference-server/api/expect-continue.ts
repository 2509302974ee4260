// `Expect: 100-continue` (RFC 9110 §10.1.1): the client waits for `100 Continue` before it sends
// its body. Node sends it at once unless told otherwise, before anything is checked; the reference
// sends it only to a request that would pass authentication — a valid key on an API host, the admin
// token on the admin host, a signed-in session (or the sign-in form's cookie) on a panel host.
// Every other request gets its final answer (401, 403, 421, …) without a 100, and its connection is
// closed after it, since a body may still follow unread.
import type { IncomingMessage } from 'node:http';
import { parseAuthorization } from './authorization-header.ts';
import { fieldLines, hostLines, hostPortMatches, requestHostname } from '../http/field-lines.ts';
import { PATHS } from '../panel/paths.ts';
import { SIGN_IN_COOKIE } from '../panel/sign-in-token.ts';
import { cookieValue } from '../panel/sessions.ts';
import { sniMatches, type PipelineContext } from './request-pipeline.ts';
import { siteOf, type SiteContexts } from '../listeners/sites.ts';

/** Whether to send `100 Continue`: never for a request the server will refuse. Never throws. */
export function continueAllowed(req: IncomingMessage, api: PipelineContext, sites: SiteContexts): boolean {
  try {
    return (
      hostPortMatches(hostLines(req), req.socket.localPort) &&
      passesAuthentication(req, requestHostname(req), api, sites)
    );
  } catch {
    return false;
  }
}

function passesAuthentication(
  req: IncomingMessage,
  hostname: string | undefined,
  api: PipelineContext,
  sites: SiteContexts,
): boolean {
  if (hostname === undefined) return false;
  const site = siteOf(hostname, api.domain);
  if (site && !sniMatches(req, hostname)) return false;
  if (site?.kind === 'admin') {
    const authorization = parseAuthorization(fieldLines(req, 'authorization'));
    return authorization.kind === 'bearer' && sites.admin.token?.matches(authorization.token) === true;
  }
  if (site?.kind === 'panel') {
    const { tenant } = site.host;
    if (sites.panel.sessions.fromRequest(req, tenant, site.hostname)) return true;
    const path = (req.url ?? '').split('?', 1)[0];
    return path === PATHS.signIn && cookieValue(req.headers.cookie, SIGN_IN_COOKIE) !== undefined;
  }
  const { steps } = api;
  const host = steps.tenantOf(req, hostname, api);
  if (!host || !steps.sniMatches(req, hostname)) return false;
  const authorization = steps.authorizationOf(req);
  return authorization.kind === 'bearer' && steps.findKey(api, host, authorization.token) !== undefined;
}
