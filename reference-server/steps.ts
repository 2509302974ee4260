// The replaceable steps of the reference server, in one object: each step of an API request's
// path (request-pipeline.ts), how an answer is written, what plain HTTP answers and which
// certificate is served. The server always runs CORRECT_STEPS, unless it was started with a named
// fault (faults.ts, `--fault NAME`), which swaps one step for a faulty variant to prove that the
// conformance suite notices. Keeping the swap here keeps the correct path free of fault checks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Customer, Permission } from '../schemas/generated/fixtures.ts';
import type { StoredKey } from './api-keys.ts';
import { parseAuthorization, type AuthorizationHeader } from './authorization-header.ts';
import { apiError, type ApiResponse } from './errors.ts';
import { fieldLines } from './field-lines.ts';
import { resolveApiHost, type ApiHost } from './hosts.ts';
import { findRoute, sniMatches, type PipelineContext, type Route } from './request-pipeline.ts';
import { writeApiResponse, type Transport } from './response-writer.ts';
import { ensureCertificates } from './tls.ts';

export interface ServerSteps {
  /** The tenant and environment of an API host name, from the name alone (spec §5). */
  tenantOf(req: IncomingMessage, hostname: string, context: PipelineContext): ApiHost | undefined;
  /** Whether the connection was opened (TLS SNI) for `hostname` (RFC 9110 §7.4). */
  sniMatches(req: IncomingMessage, hostname: string): boolean;
  /** The request's `Authorization` field lines, read as a Bearer credential or not. */
  authorizationOf(req: IncomingMessage): AuthorizationHeader;
  /** The active key `token` is within the host's tenant and environment, or undefined. */
  findKey(context: PipelineContext, host: ApiHost, token: string): StoredKey | undefined;
  /** The route of a request path (query removed), or undefined. */
  findRoute(path: string): Route | undefined;
  /** Whether the key's permissions allow the route's operation. */
  permits(key: StoredKey, permission: Permission): boolean;
  /** The customers of the host's tenant and environment. The request is passed only so that a
   * faulty variant can read from it what the correct step ignores. */
  customers(req: IncomingMessage, host: ApiHost, context: PipelineContext): readonly Customer[];
  /** Writes an answer of the HTTPS API. */
  writeResponse(res: ServerResponse, response: ApiResponse, transport: Transport): void;
  /** What the plain-HTTP listener answers (spec §5 Scheme 4: plain HTTP is rejected). */
  plainHttpAnswer(req: IncomingMessage, context: PipelineContext): ApiResponse;
  /** The CA and the leaf certificate the HTTPS listener serves. */
  certificates: typeof ensureCertificates;
}

export const CORRECT_STEPS: ServerSteps = {
  tenantOf: (_req, hostname, context) => resolveApiHost(hostname, context.domain),
  sniMatches,
  // Every field line: `req.headers` silently keeps only the first of two Authorization headers.
  authorizationOf: (req) => parseAuthorization(fieldLines(req, 'authorization')),
  findKey: (context, host, token) => context.data.keys.find(host.tenant, host.environment, token),
  findRoute,
  permits: (key, permission) => key.permissions.has(permission),
  customers: (_req, host, context) => context.data.customers(host.tenant, host.environment),
  writeResponse: writeApiResponse,
  plainHttpAnswer: () => apiError('https_required'),
  certificates: ensureCertificates,
};
