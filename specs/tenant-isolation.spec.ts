// Spec §1 and §5 Tenant identification: the tenant is the subdomain, keys work only in their
// tenant's context, tenant identifiers are never sent, and each tenant's data is isolated.
import { randomBytes } from 'node:crypto';
import { unknownKeyLike } from '../conformance/judging/key-variants.ts';
import { Inconclusive } from '../conformance/judging/checks.ts';
import { conformanceRule, notApplicable } from '../conformance/run/test.ts';
import { followPages } from '../conformance/judging/pages.ts';
import { withoutShared } from '../conformance/judging/tenant-knowledge.ts';
import { unservedPage } from '../conformance/judging/knowledge.ts';
import { requireOtherTenantValues, requireOwnValues } from './tenant-data.ts';
import { AUTH_REJECTION_CODES } from '../conformance/judging/spec-errors.ts';

/** The tenant label of a base URL: the first label of its host. */
function tenantLabel(baseUrl: string): string {
  return new URL(baseUrl).hostname.split('.')[0] ?? '';
}

// Every page of the list the run follows (judging/pages.ts): a leak may start on the third.
conformanceRule('TENANT-OWN-DATA-ONLY', async ({ api, check, customersUrl, knowledge, bearer }) => {
  requireOtherTenantValues(knowledge);
  const list = await followPages(api, customersUrl(), { headers: { Authorization: bearer('fullAccess') } });
  const [first] = list.pages;
  if (!first) throw new Error('followPages returns the first answer');
  check.served(first, "The tenant's own key");
  const what = (index: number): string =>
    index === 0 ? "The tenant's own key" : `The tenant's own key, page ${index + 1} of its list`;
  // The other tenant's own records first: a page holding them is the leak. A record both lists
  // hold whole may be either tenant's, leaked into the other's list: a leak too, said as such.
  const shared = knowledge.sharedRecords ?? new Set<string>();
  const other = knowledge.other;
  const otherOwn = other && { label: other.label, values: withoutShared(other.values, shared) };
  list.pages.forEach((page, index) => check.noDataOf(page, [otherOwn], what(index)));
  list.pages.forEach((page, index) =>
    check.noDataOf(
      page,
      [other],
      `${what(index)} (records both tenants' lists hold: one of the two lists is not filtered by tenant)`,
    ),
  );
  // No leak on the pages served, but a page the list named was not: what it holds is unknown, so
  // the rule is not passed on the pages before it.
  if (list.unserved)
    throw new Inconclusive(
      `The tenant's own list was not followed to its end: ${unservedPage(list.unserved)}. The records past page ${list.unserved.page - 1} were not checked.`,
    );
});

// A cursor or next link is the other tenant's position in its own list. Replayed on this tenant's
// host with this tenant's key, it may be refused or read as a position in this tenant's list; it
// must never be believed as naming the other tenant (docs/decisions/0023). A value this tenant's
// own pages held already is TENANT-OWN-DATA-ONLY's finding, not this rule's.
conformanceRule(
  'TENANT-OTHER-PAGE-CURSOR-NO-DATA',
  async ({ api, check, knowledge, bearer, target, otherTenant }) => {
    requireOtherTenantValues(knowledge);
    const next = knowledge.otherNextPage;
    if (!next)
      // A list that never pages has no cursor to misuse: that is no fault of the target's, so the
      // verdict must not wait on it (INCOMPLETE would block every correct deployment without paging).
      notApplicable(
        'not applicable: the other tenant\'s list names no next page (no Link rel="next", no next link, no cursor with has_more), so there is no page cursor of its own to replay and the rule was not exercised. If the deployment does page its lists, point otherTenantBaseUrl at a tenant with more customers than one page holds.',
      );
    const replayed = onOwnHost(next.url, otherTenant.baseUrl, target.baseUrl);
    const exchange = await api.get(replayed, {
      headers: { Authorization: bearer('fullAccess') },
      note: `the other tenant's next page (named by ${next.how}) on this tenant's host`,
    });
    const otherOnly = knowledge.other && {
      label: knowledge.other.label,
      values: withoutShared(knowledge.other.values, knowledge.ownServed ?? new Set()),
    };
    check.noDataOf(exchange, [otherOnly], "The other tenant's page cursor with this tenant's key and host");
  },
);

/** `url` (under `fromBase`) moved to `toBase`: the same path and query on the other host. */
function onOwnHost(url: string, fromBase: string, toBase: string): string {
  const base = fromBase.replace(/\/$/, '');
  if (url.startsWith(`${base}/`) || url.startsWith(`${base}?`))
    return `${toBase.replace(/\/$/, '')}${url.slice(base.length)}`;
  const moved = new URL(url);
  const own = new URL(toBase);
  moved.protocol = own.protocol;
  moved.host = own.host;
  return moved.toString();
}

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
    const otherUrl = `${otherTenant.baseUrl}/customers`;
    // Who honours each header, and why the others are left out: docs/decisions/0016.
    const variants: Record<string, string>[] = [
      { 'X-Forwarded-Host': otherHost },
      { Forwarded: `host="${otherHost}";proto=https` },
      { 'X-Original-Host': otherHost },
      { 'X-Host': otherHost },
      { 'X-Forwarded-Server': otherHost },
      { 'X-HTTP-Host-Override': otherHost },
      // These replace the request target; in absolute form its authority is the host (RFC 9112 §3.2.2).
      { 'X-Original-URL': otherUrl },
      { 'X-Rewrite-URL': otherUrl },
      { 'X-Tenant-Id': tenantLabel(otherTenant.baseUrl) },
    ];
    const authorization = { Authorization: bearer('fullAccess') };
    const baseline = await api.get(customersUrl(), { headers: authorization, note: 'no forwarding header' });
    await check.each(variants, async (headers) => {
      const what = `${Object.keys(headers).join(', ')} naming the other tenant`;
      const exchange = await api.get(customersUrl(), {
        headers: { ...authorization, ...headers },
        note: what,
      });
      check.noDataOf(exchange, [knowledge.other], what, baseline);
    });
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
    const otherKey = await mismatched(credential('otherTenant'), "the other tenant's key");
    await check.each(
      [
        [ownKey, knowledge.other, "This tenant's key with the other tenant's Host"],
        [otherKey, knowledge.own, "The other tenant's key over this tenant's connection"],
      ] as const,
      ([exchange, tenant, what]) => check.noDataOf(exchange, [tenant], what),
    );
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

// A cache before the API keyed on host and URL alone (Authorization ignored) gives the answer it
// has just stored to the next request for that URL, whoever sends it. Each request with other
// credentials is therefore sent right after a served one, on the identical URL, so the verdict
// does not depend on which rules ran before. Only data is evidence here: how the request should
// have been rejected is the finding of AUTH-MISSING-HEADER, KEY-UNKNOWN-REJECTED and the others
// (docs/decisions/0017).
conformanceRule(
  'TENANT-CACHED-ANSWER-NOT-SHARED',
  async ({ api, check, customersUrl, knowledge, credential, bearer, target }) => {
    requireOwnValues(knowledge);
    const url = customersUrl();
    const { otherTenant, sandbox } = target.credentials;
    // The declared keys widen the check; without them it still stands on the two requests that
    // need no key of their own (the decision record says why that is not a partial pass).
    const others: { with: string; authorization?: string }[] = [
      { with: 'no Authorization header' },
      { with: 'an unknown key', authorization: `Bearer ${unknownKeyLike(credential('fullAccess'))}` },
      ...(otherTenant === undefined
        ? []
        : [{ with: "the other tenant's key", authorization: `Bearer ${otherTenant}` }]),
      ...(sandbox === undefined ? [] : [{ with: 'a development key', authorization: `Bearer ${sandbox}` }]),
    ];
    await check.each(others, async (other) => {
      const served = check.response(
        await api.get(url, { headers: { Authorization: bearer('fullAccess') }, note: 'served first' }),
        'The request served first',
      );
      if (served.status !== 200) {
        throw new Inconclusive(
          `The request meant to be served first got ${served.status}, so nothing could be cached. ${check.describe(served)}`,
        );
      }
      const after = await api.get(url, {
        headers: other.authorization === undefined ? {} : { Authorization: other.authorization },
        note: `right after a served request, with ${other.with}`,
      });
      check.noDataOf(
        after,
        [knowledge.own, knowledge.other],
        `The same URL right after a served request, with ${other.with}`,
      );
    });
  },
);
