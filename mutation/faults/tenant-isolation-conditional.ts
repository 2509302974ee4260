// Faults of conditional requests (specs/rules/tenant-isolation-conditional.ts and the conditional
// probes of the rejection rules): a validator evaluated before authentication.
import type { ServerSteps } from '../../reference-server/steps/server-steps.ts';
import { requestHostname } from '../../reference-server/http/field-lines.ts';
import { CORRECT, type Fault } from '../fault.ts';

/** The one ETag every tenant's list is served with: a version tag, the same for all. */
const SHARED_ETAG = '"customers-v1"';
/** Distinct host and URL pairs the front remembers at most: the suite asks for a handful. */
const ENTRIES = 1000;

/**
 * A writer with the conditional handling of a front placed before authentication: each 200 goes
 * out with the shared ETag and its host and URL are remembered; a later GET of that host and URL
 * whose If-None-Match names the shared ETag gets 304 Not Modified, whatever its credentials. A host
 * never served (a tenant that does not exist) gets the API's own answer.
 */
function conditionalBeforeAuthentication(): ServerSteps['writeResponse'] {
  const served = new Set<string>();
  return (res, response, transport) => {
    const req = res.req;
    const at = `${requestHostname(req) ?? ''} ${req.url ?? ''}`;
    const names = (req.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim());
    if (req.method === 'GET' && served.has(at) && names.includes(SHARED_ETAG))
      return CORRECT.writeResponse(
        res,
        { status: 304, headers: { ETag: SHARED_ETAG }, body: undefined },
        transport,
      );
    if (response.status !== 200) return CORRECT.writeResponse(res, response, transport);
    if (served.size < ENTRIES) served.add(at);
    CORRECT.writeResponse(
      res,
      { ...response, headers: { ...response.headers, ETag: SHARED_ETAG } },
      transport,
    );
  };
}

export const TENANT_ISOLATION_CONDITIONAL_FAULTS = {
  'conditional-answered-before-authentication': {
    description:
      'A front answers conditional requests before authentication: every tenant’s list carries one shared ETag, and a GET whose If-None-Match names it, on a host and URL already served, gets 304 Not Modified whatever its credentials (none, another tenant’s key); a host never served gets the API’s refusal.',
    catches: ['AUTH-MISSING-HEADER', 'TENANT-CONDITIONAL-UNKNOWN-INDISTINGUISHABLE'],
    alsoFails: {
      'TENANT-CROSS-KEY-REJECTED':
        'Its probe with the other tenant’s key and the shared ETag in If-None-Match gets 304: the stored copy confirmed to a foreign key.',
    },
    steps: () => ({ writeResponse: conditionalBeforeAuthentication() }),
  },
} satisfies Record<string, Fault>;
