// Spec §1 and §5 Tenant identification: the tenant is the subdomain, keys work only in their
// tenant's context, tenant identifiers are never sent, and each tenant's data is isolated.
import { randomBytes } from 'node:crypto';
import { unknownKeyLike } from '../conformance/judging/key-variants.ts';
import { conformanceRule, notEvaluated } from '../conformance/run/test.ts';
import { Inconclusive } from '../conformance/judging/checks.ts';
import type { Knowledge } from '../conformance/judging/knowledge.ts';
import { AUTH_REJECTION_CODES } from '../conformance/judging/spec-errors.ts';

/** The tenant label of a base URL: the first label of its host. */
function tenantLabel(baseUrl: string): string {
  return new URL(baseUrl).hostname.split('.')[0] ?? '';
}

/** A rule that looks for the other tenant's data cannot say anything if that tenant has none. */
function requireOtherTenantValues(knowledge: Knowledge): void {
  if (knowledge.otherUnanswered !== undefined)
    throw new Inconclusive(
      `The other tenant's data could not be learned, so whose data an answer holds can't be told: ${knowledge.otherUnanswered}`,
    );
  if (!knowledge.other || knowledge.other.values.size === 0) {
    notEvaluated(
      'not evaluated: GET {otherTenantBaseUrl}/customers with credentials.otherTenant gave no data to recognise (no answer, an answer other than 200, or no customers). Check that address and key, and point otherTenantBaseUrl at a tenant that has customers.',
    );
  }
}

conformanceRule('TENANT-OWN-DATA-ONLY', async ({ api, check, customersUrl, knowledge, bearer }) => {
  requireOtherTenantValues(knowledge);
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: bearer('fullAccess') },
  });
  check.served(exchange, "The tenant's own key");
  check.noDataOf(exchange, [knowledge.other], "The tenant's own key");
});

conformanceRule('TENANT-CROSS-KEY-REJECTED', async ({ api, check, customersUrl, bearer }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: bearer('otherTenant') },
    note: "the other tenant's key",
  });
  check.rejected(exchange, "Another tenant's valid key", {
    codes: AUTH_REJECTION_CODES,
  });
});

conformanceRule(
  'TENANT-CROSS-KEY-INDISTINGUISHABLE',
  async ({ api, check, customersUrl, credential, bearer }) => {
    const otherTenants = check.response(
      await api.get(customersUrl(), {
        headers: { Authorization: bearer('otherTenant') },
        note: "the other tenant's key",
      }),
      "Another tenant's key",
    );
    const unknown = check.response(
      await api.get(customersUrl(), {
        headers: { Authorization: `Bearer ${unknownKeyLike(credential('otherTenant'))}` },
        note: 'an unknown key',
      }),
      'An unknown key',
    );
    // Date and connection-management headers differ by nature; everything else must match.
    const ignored = new Set([
      'date',
      'keep-alive',
      'connection',
      'content-length',
      'x-request-id',
      'request-id',
    ]);
    const headerNames = (headers: Record<string, string>): string =>
      Object.keys(headers)
        .filter((name) => !ignored.has(name))
        .sort()
        .join(', ');
    const differences = [
      otherTenants.status !== unknown.status && `status ${otherTenants.status} vs ${unknown.status}`,
      otherTenants.bodyText !== unknown.bodyText && 'the bodies differ',
      headerNames(otherTenants.headers) !== headerNames(unknown.headers) &&
        `header names [${headerNames(otherTenants.headers)}] vs [${headerNames(unknown.headers)}]`,
    ].filter(Boolean);
    if (differences.length > 0) {
      check.fail(
        `Another tenant's key can be told apart from an unknown key: ${differences.join('; ')}.`,
        otherTenants,
        unknown,
      );
    }
  },
);

conformanceRule('TENANT-UNKNOWN-HOST-REJECTED', async ({ api, check, target, bearer }) => {
  const url = new URL(target.baseUrl);
  const own = tenantLabel(target.baseUrl);
  url.hostname = url.hostname.replace(own, `no-such-tenant-${randomBytes(4).toString('hex')}`);
  const exchange = await api.get(`${url.toString()}/customers`, {
    headers: { Authorization: bearer('fullAccess') },
    note: 'a tenant that does not exist',
    // Without wildcard DNS or a wildcard certificate, nothing answers there: that is a rejection.
    refusalExpected: true,
  });
  check.rejected(exchange, 'A host of a tenant that does not exist', {
    allowNoResponse: true,
  });
});

// The answer to the same request without the extra fields is the baseline: a leak already in it
// is TENANT-OWN-DATA-ONLY's finding; these rules fail only when the fields change what is served.
conformanceRule(
  'TENANT-ID-FIELDS-IGNORED',
  async ({ api, check, customersUrl, knowledge, otherTenant, bearer }) => {
    requireOtherTenantValues(knowledge);
    const other = tenantLabel(otherTenant.baseUrl);
    const fields = ['tenant_id', 'company_id', 'organization_id'];
    const authorization = { Authorization: bearer('fullAccess') };
    const baseline = await api.get(customersUrl(), { headers: authorization, note: 'no tenant identifier' });
    const inHeaders = await api.get(customersUrl(), {
      headers: { ...authorization, ...Object.fromEntries(fields.map((field) => [field, other])) },
      note: `${fields.join(', ')} headers naming ${other}`,
    });
    check.noDataOf(inHeaders, [knowledge.other], 'Tenant identifier headers', baseline);
    const url = new URL(customersUrl());
    for (const field of fields) url.searchParams.set(field, other);
    const inQuery = await api.get(url.toString(), { headers: authorization, note: `query naming ${other}` });
    check.noDataOf(inQuery, [knowledge.other], 'Tenant identifier query parameters', baseline);
  },
);

conformanceRule(
  'TENANT-FORWARDED-HOST-IGNORED',
  async ({ api, check, customersUrl, knowledge, otherTenant, bearer }) => {
    requireOtherTenantValues(knowledge);
    const otherHost = new URL(otherTenant.baseUrl).host;
    const variants: Record<string, string>[] = [
      { 'X-Forwarded-Host': otherHost },
      { Forwarded: `host="${otherHost}";proto=https` },
      { 'X-Tenant-Id': tenantLabel(otherTenant.baseUrl) },
    ];
    const authorization = { Authorization: bearer('fullAccess') };
    const baseline = await api.get(customersUrl(), { headers: authorization, note: 'no forwarding header' });
    for (const headers of variants) {
      const what = `${Object.keys(headers).join(', ')} naming the other tenant`;
      const exchange = await api.get(customersUrl(), {
        headers: { ...authorization, ...headers },
        note: what,
      });
      check.noDataOf(exchange, [knowledge.other], what, baseline);
    }
  },
);

// What must never happen on a connection opened for one tenant with a Host naming another is a
// split between the tenant that authenticates and the tenant whose data is served. Serving B to
// B's own key there is legitimate where the certificate covers both names (a front that routes by
// Host; HTTP/2 connection coalescing), so each key may get at most its own tenant's data.
conformanceRule(
  'TENANT-SNI-HOST-MISMATCH-NO-DATA',
  async ({ raw, check, customersUrl, target, knowledge, credential, otherTenant }) => {
    requireOtherTenantValues(knowledge);
    const otherHost = new URL(otherTenant.baseUrl).host;
    const note = (whose: string): string =>
      `Host: ${otherHost} on a connection opened for ${new URL(target.baseUrl).hostname}, ${whose}`;
    const mismatched = (key: string, whose: string) =>
      raw.send({
        url: customersUrl(),
        hostHeader: otherHost,
        headers: [
          ['Accept', 'application/json'],
          ['Authorization', `Bearer ${key}`],
        ],
        note: note(whose),
      });
    const ownKey = await mismatched(credential('fullAccess'), "this tenant's key");
    check.noDataOf(ownKey, [knowledge.other], "This tenant's key with the other tenant's Host");
    const otherKey = await mismatched(credential('otherTenant'), "the other tenant's key");
    check.noDataOf(otherKey, [knowledge.own], "The other tenant's key over this tenant's connection");
  },
);

conformanceRule('TENANT-SNI-HOST-MISMATCH-421', async ({ raw, check, customersUrl, target, otherTenant }) => {
  const otherHost = new URL(otherTenant.baseUrl).host;
  const exchange = await raw.send({
    url: customersUrl(),
    hostHeader: otherHost,
    headers: [['Accept', 'application/json']],
    note: `Host: ${otherHost} on a connection opened for ${new URL(target.baseUrl).hostname}`,
  });
  check.status(exchange, [421], 'An SNI/Host mismatch');
});
