// The hosts of the HTTPS listener other than the tenant APIs: each tenant's administration panel
// (`{tenant}.{domain}`, `sandbox-{tenant}.{domain}`) and the admin API (`admin.{domain}`). A host
// that is neither goes to the API pipeline, which answers it as before (an API host, or 421).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { logAnswered, type AccessLogSink } from '../http/access-log.ts';
import type { AdminContext } from '../admin-api/admin-api.ts';
import { apiError } from '../api/errors.ts';
import { isAdminHostname, resolvePanelHost, type PanelHost } from '../http/hosts.ts';
import type { PanelContext } from '../panel/visit.ts';
import { sniMatches, type RequestFacts } from '../api/request-pipeline.ts';
import { writeApiResponse } from '../api/response-writer.ts';

export type Site = { kind: 'panel'; hostname: string; host: PanelHost } | { kind: 'admin'; hostname: string };

/**
 * The panel or admin site a request's host name (`requestHostname`) names, or undefined for
 * everything else (a request without exactly one `Host` included).
 */
export function siteOf(hostname: string | undefined, domain: string): Site | undefined {
  if (hostname === undefined) return undefined;
  if (isAdminHostname(hostname, domain)) return { kind: 'admin', hostname };
  const host = resolvePanelHost(hostname, domain);
  return host && { kind: 'panel', hostname, host };
}

export interface SiteContexts {
  panel: PanelContext;
  admin: AdminContext;
  log: AccessLogSink;
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
      writePanelResponse: typeof import('../panel/panel-response.ts').writePanelResponse;
    }>
  | undefined;

function loadSiteHandlers(): NonNullable<typeof siteHandlers> {
  siteHandlers ??= Promise.all([
    import('../admin-api/admin-api.ts'),
    import('../panel/panel.ts'),
    import('../panel/panel-response.ts'),
  ]).then(([admin, panel, panelResponse]) => ({
    handleAdminRequest: admin.handleAdminRequest,
    handlePanelRequest: panel.handlePanelRequest,
    writePanelResponse: panelResponse.writePanelResponse,
  }));
  return siteHandlers;
}

export async function serveSite(
  req: IncomingMessage,
  res: ServerResponse,
  site: Site,
  contexts: SiteContexts,
): Promise<void> {
  const started = performance.now();
  const facts: RequestFacts = {};
  let status: number;
  let errorCode: string | undefined;
  try {
    if (!sniMatches(req, site.hostname)) {
      // RFC 9110 §7.4, as for the API hosts: a connection opened for one host serves no other.
      const response = apiError('misdirected_request');
      writeApiResponse(res, response, 'https');
      ({ status, errorCode } = response);
    } else if (site.kind === 'admin') {
      const { handleAdminRequest } = await loadSiteHandlers();
      const response = await handleAdminRequest(req, contexts.admin, facts);
      writeApiResponse(
        res,
        { status: response.status, headers: response.headers, body: response.body },
        'https',
      );
      ({ status, errorCode } = response);
    } else {
      const { handlePanelRequest, writePanelResponse } = await loadSiteHandlers();
      const response = await handlePanelRequest(req, site.host, contexts.panel, facts);
      writePanelResponse(res, response, req.method);
      status = response.status;
    }
  } catch {
    // A defect of ours still gets an answer, never a stack trace or a hung socket.
    const response = apiError('internal_error');
    if (!res.headersSent) writeApiResponse(res, response, 'https');
    else res.destroy();
    ({ status, errorCode } = response);
  }
  logAnswered(contexts.log, { req, response: { status, errorCode }, started, transport: 'https', facts });
}
