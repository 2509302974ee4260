// The hosts of the HTTPS listener other than the tenant APIs: each tenant's administration panel
// (`{tenant}.{domain}`, `sandbox-{tenant}.{domain}`) and the admin API (`admin.{domain}`). A host
// that is neither goes to the API pipeline, which answers it as before (an API host, or 421).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { logAnswered, type AccessLogSink } from '../http/access-log.ts';
import { handleAdminRequest, type AdminContext } from '../admin-api/admin-api.ts';
import { apiError } from '../api/errors.ts';
import { isAdminHostname, resolvePanelHost, type PanelHost } from '../http/hosts.ts';
import { handlePanelRequest } from '../panel/panel.ts';
import type { PanelContext } from '../panel/visit.ts';
import { writePanelResponse } from '../panel/panel-response.ts';
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
      const response = await handleAdminRequest(req, contexts.admin, facts);
      writeApiResponse(
        res,
        { status: response.status, headers: response.headers, body: response.body },
        'https',
      );
      ({ status, errorCode } = response);
    } else {
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
