// The reads a release waits on — can-i-ship and the badge — and what every read checks first (the
// method, the token of --private-reads, the path). One piece for the registry's main port and for
// the gate thread's own port (registry/gate/), so the two answer the same question the same way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Queryable } from '../database/database.ts';
import { authenticate, type PublisherSource } from '../publish/publishers.ts';
import { renderRegistryBadge } from '../web/badge.ts';
import { authenticationError, canIShipAnswer } from './api.ts';
import { markPrivate, RequestError, send } from './respond.ts';

/** The path's segments, decoded; a malformed percent-encoding is the client's error, not a 500. */
export function pathSegments(path: string): string[] {
  let segments: string[];
  try {
    segments = path
      .split('/')
      .filter(Boolean)
      .map((segment) => decodeURIComponent(segment));
  } catch {
    throw new RequestError(
      400,
      'bad_path',
      'The path holds a malformed percent-encoding (a % not followed by two hex digits of UTF-8).',
    );
  }
  // A NUL or another control character names no page or file of the registry (and PostgreSQL's text
  // refuses a NUL): the client's error, named, not a 500.
  // eslint-disable-next-line no-control-regex
  const control = segments.find((segment) => /[\u0000-\u001f\u007f]/.test(segment));
  if (control !== undefined)
    throw new RequestError(
      400,
      'bad_path',
      `The path holds a ${control.includes('\u0000') ? 'NUL byte (%00)' : 'control character'}, which no page or file of the registry has: remove it.`,
    );
  return segments;
}

/**
 * A read's checks before any database work: GET or HEAD, and with --private-reads a token of the
 * publishers file (every answer then Cache-Control: private). Returns the path's segments.
 */
export function checkRead(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  privateReads: PublisherSource | undefined,
): string[] {
  const method = request.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD')
    throw new RequestError(
      405,
      'method_not_allowed',
      `${method.slice(0, 10)} is not allowed here: the registry's pages and reads are GET.`,
    );
  if (privateReads) {
    // What needs a token is never kept by a shared cache: every answer is Cache-Control: private.
    markPrivate(response);
    const authentication = authenticate(privateReads.current(), request.headers.authorization);
    if (authentication.state !== 'ok') throw authenticationError(authentication.state);
  }
  return pathSegments(path);
}

/** Answers can-i-ship or the badge from `gate`; false when the path is neither. */
export async function gateRoute(
  gate: Queryable,
  segments: readonly string[],
  query: URLSearchParams,
  response: ServerResponse,
): Promise<boolean> {
  const [first, second, third] = segments;
  if (first === 'api' && second === 'v1' && segments.length === 3 && third === 'can-i-ship') {
    await canIShipAnswer(gate, query, response);
    return true;
  }
  if (first === 'badge' && segments.length === 2 && second?.endsWith('.svg')) {
    const svg = await renderRegistryBadge(gate, second.slice(0, -'.svg'.length));
    send(response, 200, 'image/svg+xml', svg, { 'Cache-Control': 'no-cache' });
    return true;
  }
  return false;
}
