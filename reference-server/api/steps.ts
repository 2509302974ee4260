// The replaceable steps of the reference server, in one object: the steps of a request's address
// (addressing/address.ts), each step of an API request's path (request-pipeline.ts), how an answer
// is written, what plain HTTP answers and which certificate is served. The server runs CORRECT_STEPS; a caller may replace any of them
// (`ReferenceServerOptions.steps`), which is how the suite's self-test (mutation/) builds its
// faulty variants without a single fault check on the correct path.
import { parseAuthorization } from '../http/authorization-header.ts';
import { apiError } from '../http/errors.ts';
import { fieldLines } from '../http/field-lines.ts';
import { CORRECT_HOST_STEPS } from '../addressing/address.ts';
import { findRoute, type ServerSteps } from './request-pipeline.ts';
import { writeApiResponse } from '../http/response-writer.ts';
import { ensureCertificates } from '../listeners/certificates.ts';
import { cursorOnItsHost } from './customer-pages.ts';

export type { ServerSteps };

export const CORRECT_STEPS: ServerSteps = {
  ...CORRECT_HOST_STEPS,
  // Every field line: `req.headers` silently keeps only the first of two Authorization headers.
  authorizationOf: (req) => parseAuthorization(fieldLines(req, 'authorization')),
  findKey: (context, host, token) => context.data.keys.find(host.tenant, host.environment, token),
  findRoute,
  cursorPosition: cursorOnItsHost,
  permits: (key, permission) => key.permissions.has(permission),
  writeResponse: writeApiResponse,
  plainHttpAnswer: () => apiError('https_required'),
  certificates: ensureCertificates,
};
