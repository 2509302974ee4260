// `Expect: 100-continue` (RFC 9110 §10.1.1): the client waits for `100 Continue` before it sends
// its body. Node sends it at once unless told otherwise, before anything is checked; the reference
// sends it only to a request that would pass authentication — a valid key on an API host, the admin
// token on the admin host, a signed-in session (or the sign-in form's cookie) on a panel host. Each
// site says what passes (`carriesAcceptedKey`, `AdminTokenCheck.presentedBy`, `panelMayContinue`);
// the request's address says which site, and refuses a misdirected request as it does every other.
// Every other request gets its final answer (401, 403, 421, …) without a 100, and its connection is
// closed after it, since a body may still follow unread.
import type { IncomingMessage } from 'node:http';
import { carriesAcceptedKey, type PipelineContext } from '../api/request-pipeline.ts';
import type { RequestFacts } from '../http/request-facts.ts';
import { panelMayContinue } from '../panel/sign-in-token.ts';
import type { SiteContexts } from './sites.ts';

/** Whether to send `100 Continue`: never for a request the server will refuse. Never throws. */
export function continueAllowed(
  req: IncomingMessage,
  facts: RequestFacts,
  api: PipelineContext,
  sites: SiteContexts,
): boolean {
  const { site, misdirected } = facts.address;
  if (misdirected !== undefined) return false;
  try {
    switch (site.kind) {
      case 'admin':
        return sites.admin.token?.presentedBy(req) === true;
      case 'panel':
        return panelMayContinue(req, site.host, sites.panel.sessions);
      case 'api':
        return carriesAcceptedKey(req, site.host, api);
      case 'none':
        return false;
    }
  } catch {
    return false;
  }
}
