// The correct steps of an API request's path, in one object: the steps of a request's address
// (addressing/address.ts) and each step of the pipeline (request-pipeline.ts). The server runs
// them, with the rest of its steps (steps/server-steps.ts); a caller may replace any of them
// (`ReferenceServerOptions.steps`), which is how the suite's self-test (mutation/) builds its
// faulty variants without a single fault check on the correct path.
import { parseAuthorization } from '../http/authorization-header.ts';
import { fieldLines } from '../http/field-lines.ts';
import { CORRECT_HOST_STEPS } from '../addressing/address.ts';
import { findRoute, type ApiSteps } from './request-pipeline.ts';
import { cursorOnItsHost } from './customer-pages.ts';

export const CORRECT_API_STEPS: ApiSteps = {
  ...CORRECT_HOST_STEPS,
  // Every field line: `req.headers` silently keeps only the first of two Authorization headers.
  authorizationOf: (req) => parseAuthorization(fieldLines(req, 'authorization')),
  findKey: (context, host, token) => context.data.keys.find(host.tenant, host.environment, token),
  findRoute,
  cursorPosition: cursorOnItsHost,
  permits: (key, permission) => key.permissions.has(permission),
};
