// The replaceable steps of the reference server, in one object: each step of an API request's
// path (request-pipeline.ts), how an answer is written, what plain HTTP answers and which
// certificate is served. The server always runs CORRECT_STEPS, unless it was started with a named
// fault (faults.ts, `--fault NAME`), which swaps one step for a faulty variant to prove that the
// conformance suite notices. Keeping the swap here keeps the correct path free of fault checks.
import { parseAuthorization } from './authorization-header.ts';
import { apiError } from './errors.ts';
import { fieldLines } from './field-lines.ts';
import { resolveApiHost } from './hosts.ts';
import { findRoute, sniMatches, type ServerSteps } from './request-pipeline.ts';
import { writeApiResponse } from './response-writer.ts';
import { ensureCertificates } from './tls.ts';

export type { ServerSteps };

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
