// What a conditional request may tell about tenants. A validator the tenants share (one ETag for
// every tenant's list, a version tag) evaluated before authentication answers 304 on the host of a
// tenant that exists and a refusal on the host of one that does not: which tenants exist can then
// be read without a key (OWASP API2, CWE-204). The 304 itself, to a request without a valid key,
// is data in effect and fails the MUST the request breaks (AUTH-MISSING-HEADER, judged by its own
// probes and by the run's checker); this rule is the lower-level finding of the oracle.
import { defineRule } from '../../conformance/run/rule-declaration.ts';
import { notApplicable } from '../../conformance/run/rule-end.ts';
import { noSuchTenantBaseUrl } from '../tenant-hosts.ts';

export const TENANT_ISOLATION_CONDITIONAL_RULES = [
  defineRule({
    id: 'TENANT-CONDITIONAL-UNKNOWN-INDISTINGUISHABLE',
    level: 'ADVISORY',
    source: 'OWASP API Security Top 10 2023 API2; CWE-204; RFC 9110 §13.2.1',
    statement:
      "A request without a key sending back the ETag the tenant was served (If-None-Match) gets the same status on the tenant's host as on the host of a tenant that does not exist.",
    needs: ['credentials.fullAccess'],
    reads: 'tenant-comparison',
    check: async ({ api, check, customersUrl, target, knowledge }) => {
      const etag = knowledge.validators?.own?.etag;
      if (etag === undefined)
        notApplicable(
          "not applicable: the tenant's list was served without an ETag, so there is no validator to send back.",
        );
      const headers = { 'If-None-Match': etag };
      const real = check.response(
        await api.get(customersUrl(), { headers, note: 'no key, the ETag the tenant was served' }),
        "A request without a key with the tenant's ETag",
      );
      const elsewhere = await api.get(`${noSuchTenantBaseUrl(target.baseUrl)}/customers`, {
        headers,
        note: 'no key, the same ETag, a tenant that does not exist',
        refusalExpected: true,
      });
      // Nothing answering there (no wildcard name or certificate) is an oracle of DNS, not of this.
      if (elsewhere.kind === 'failure')
        notApplicable(
          `not applicable: the host of a tenant that does not exist got no answer, so the two can't be compared (${check.describe(elsewhere)}).`,
        );
      if (real.status !== elsewhere.status)
        check.fail(
          `The ETag the tenant was served tells which tenants exist: a request without a key sending it back gets ${real.status} on the tenant's host and ${elsewhere.status} on the host of a tenant that does not exist. ${check.describe(real)}; ${check.describe(elsewhere)}`,
          real,
          elsewhere,
        );
    },
  }),
];
