// What the panel answers, and how it is written: HTML (or its own CSS and script) with headers
// that forbid caching, framing, inline script and cross-origin form targets.
import type { ServerResponse } from 'node:http';
import { headersFor } from '../http/http2-answer.ts';

export interface PanelResponse {
  status: number;
  contentType: string;
  body: string;
  /** A list for a header sent more than once (`Set-Cookie`). */
  headers: Record<string, string | string[]>;
}

const HTML = 'text/html; charset=utf-8';

const SECURITY_HEADERS: Record<string, string> = {
  // Only the panel's own stylesheet and script run; forms post only to the panel itself.
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  // Not `no-referrer`: with it, Chromium sends `Origin: null` on the panel's own form posts,
  // which the origin check must refuse. `same-origin` still sends nothing to other sites.
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  // Pages can hold a new key's secret: never stored by a browser or a proxy.
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=31536000',
};

export function page(
  status: number,
  body: string,
  headers: Record<string, string | string[]> = {},
): PanelResponse {
  return { status, contentType: HTML, body, headers };
}

/** 303 See Other: after a POST, the browser follows with a GET. */
export function redirect(location: string, headers: Record<string, string | string[]> = {}): PanelResponse {
  return { status: 303, contentType: HTML, body: '', headers: { Location: location, ...headers } };
}

export function asset(contentType: string, body: string): PanelResponse {
  return { status: 200, contentType, body, headers: {} };
}

export function writePanelResponse(
  res: ServerResponse,
  response: PanelResponse,
  method: string | undefined,
): void {
  res.writeHead(
    response.status,
    headersFor(res, {
      ...SECURITY_HEADERS,
      ...response.headers,
      'Content-Type': response.contentType,
      'Content-Length': Buffer.byteLength(response.body),
    }),
  );
  res.end(method === 'HEAD' ? undefined : response.body);
}
