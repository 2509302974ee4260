// Spec §1 and §5 Tenant identification: the tenant is the subdomain, keys work only in their
// tenant's context, tenant identifiers are never sent, and each tenant's data is isolated.
// Its rules of HTTP/2's own are declared in ./tenant-isolation-http2.ts.
import { defineRule } from '../../conformance/run/rule-declaration.ts';
import { unknownKeyLike } from '../../conformance/judging/key-variants.ts';
import { Inconclusive } from '../../conformance/judging/failures.ts';
import { notApplicable } from '../../conformance/run/rule-end.ts';
import { followPages } from '../../conformance/judging/pages.ts';
import { withoutShared } from '../../conformance/judging/tenant-knowledge.ts';
import { unservedPage } from '../../conformance/judging/knowledge.ts';
import { requireOtherTenantValues, requireOwnValues } from '../tenant-data.ts';
import { conditionalProbes } from '../conditional-requests.ts';
import { AUTH_REJECTION_CODES } from '../../conformance/judging/spec-errors.ts';
import { TENANT_ISOLATION_HTTP2_RULES } from './tenant-isolation-http2.ts';
import { TENANT_ISOLATION_CONDITIONAL_RULES } from './tenant-isolation-conditional.ts';
import { noSuchTenantBaseUrl, tenantLabel } from '../tenant-hosts.ts';

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

export const TENANT_ISOLATION_RULES = [
  // Every page of the list the run follows (judging/pages.ts): a leak may start on the third.
  defineRule({
    id: 'TENANT-OWN-DATA-ONLY',
    level: 'MUST',
    source: 'spec §1; §5 Tenant identification 1',
    statement:
      "A valid key is served its own tenant's data and no value of another tenant's data, on the first page of its list and on every page after it the run follows.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
    reads: 'tenant-comparison',
    check: async ({ api, check, customersUrl, knowledge, bearer }) => {
      requireOtherTenantValues(knowledge);
      const list = await followPages(api, customersUrl(), {
        headers: { Authorization: bearer('fullAccess') },
      });
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
    },
  }),
  defineRule({
    id: 'TENANT-CROSS-KEY-REJECTED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 2',
    statement:
      "Another tenant's valid key on this tenant's host is rejected (invalid_api_key or insufficient_permissions), with no data of either tenant.",
    needs: ['otherTenantBaseUrl', 'credentials.otherTenant', 'credentials.fullAccess'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, bearer, knowledge }) => {
      // Also as a client with a stored copy asks (the ETag either tenant was served): a 304 gives it.
      const probes = [undefined, ...conditionalProbes(knowledge)];
      await check.each(probes, async (probe) => {
        const note = `the other tenant's key${probe ? `, ${probe.note}` : ''}`;
        const exchange = await api.get(customersUrl(), {
          headers: { Authorization: bearer('otherTenant'), ...probe?.headers },
          note,
        });
        check.rejected(exchange, `Another tenant's valid key${probe ? ` (${probe.note})` : ''}`, {
          codes: AUTH_REJECTION_CODES,
        });
      });
    },
  }),
  defineRule({
    id: 'TENANT-CROSS-KEY-INDISTINGUISHABLE',
    level: 'ADVISORY',
    source: 'OWASP API Security Top 10 2023 API2; CWE-204',
    statement: "Another tenant's key gets the same status, body and header names as an unknown key.",
    needs: ['credentials.otherTenant'],
    reads: 'tenant-comparison',
    check: async ({ api, check, customersUrl, credential, bearer }) => {
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
  }),
  defineRule({
    id: 'TENANT-UNKNOWN-HOST-REJECTED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1, 2',
    statement:
      'A well-formed host of a tenant that does not exist is rejected — not resolved, refused, or answered with an error status — with no data, even with a valid key of another tenant.',
    needs: ['credentials.fullAccess'],
    reads: 'host-check',
    check: async ({ api, check, target, bearer }) => {
      const exchange = await api.get(`${noSuchTenantBaseUrl(target.baseUrl)}/customers`, {
        headers: { Authorization: bearer('fullAccess') },
        note: 'a tenant that does not exist',
        // Without wildcard DNS or a wildcard certificate, nothing answers there: that is a rejection.
        refusalExpected: true,
      });
      check.rejected(exchange, 'A host of a tenant that does not exist', {
        allowNoResponse: true,
      });
    },
  }),
  // The answer to the same request without the extra fields is the baseline: a leak already in it
  // is TENANT-OWN-DATA-ONLY's finding; these rules fail only when the fields change what is served.
  defineRule({
    id: 'TENANT-ID-FIELDS-IGNORED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1, 3',
    statement:
      'tenant_id, company_id and organization_id in headers or the query never change the tenant: they add no data of the tenant they name to what the same request without them is served.',
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
    reads: 'tenant-comparison',
    check: async ({ api, check, customersUrl, knowledge, otherTenant, bearer }) => {
      requireOtherTenantValues(knowledge);
      const other = tenantLabel(otherTenant.baseUrl);
      const fields = ['tenant_id', 'company_id', 'organization_id'];
      const authorization = { Authorization: bearer('fullAccess') };
      const baseline = await api.get(customersUrl(), {
        headers: authorization,
        note: 'no tenant identifier',
      });
      const inHeaders = await api.get(customersUrl(), {
        headers: { ...authorization, ...Object.fromEntries(fields.map((field) => [field, other])) },
        note: `${fields.join(', ')} headers naming ${other}`,
      });
      check.noDataOf(inHeaders, [knowledge.other], 'Tenant identifier headers', baseline);
      const url = new URL(customersUrl());
      for (const field of fields) url.searchParams.set(field, other);
      const inQuery = await api.get(url.toString(), {
        headers: authorization,
        note: `query naming ${other}`,
      });
      check.noDataOf(inQuery, [knowledge.other], 'Tenant identifier query parameters', baseline);
    },
  }),
  defineRule({
    id: 'TENANT-FORWARDED-HOST-IGNORED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1',
    statement:
      'X-Forwarded-Host, Forwarded, X-Original-Host, X-Host, X-Forwarded-Server, X-HTTP-Host-Override and X-Tenant-Id naming another tenant, and X-Original-URL or X-Rewrite-URL giving its URL, never change the tenant: they add no data of that tenant to what the same request without them is served.',
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
    reads: 'tenant-comparison',
    check: async ({ api, check, customersUrl, knowledge, otherTenant, bearer }) => {
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
      const baseline = await api.get(customersUrl(), {
        headers: authorization,
        note: 'no forwarding header',
      });
      await check.each(variants, async (headers) => {
        const what = `${Object.keys(headers).join(', ')} naming the other tenant`;
        const exchange = await api.get(customersUrl(), {
          headers: { ...authorization, ...headers },
          note: what,
        });
        check.noDataOf(exchange, [knowledge.other], what, baseline);
      });
    },
  }),
  // What must never happen on a connection opened for one tenant with a Host naming another is a
  // split between the tenant that authenticates and the tenant whose data is served. Serving B to
  // B's own key there is legitimate where the certificate covers both names (a front that routes by
  // Host; HTTP/2 connection coalescing), so each key may get at most its own tenant's data.
  defineRule({
    id: 'TENANT-SNI-HOST-MISMATCH-NO-DATA',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1; RFC 9110 §7.4',
    statement:
      "On a connection opened (TLS SNI) for this tenant with a Host header naming another tenant, no key gets data of a tenant other than its own: this tenant's key gets none of the other's, the other tenant's key none of this one's.",
    needs: ['otherTenantBaseUrl', 'credentials.otherTenant', 'credentials.fullAccess'],
    reads: 'tenant-comparison',
    check: async ({ raw, check, customersUrl, target, knowledge, credential, otherTenant }) => {
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
  }),
  defineRule({
    id: 'TENANT-SNI-HOST-MISMATCH-421',
    level: 'ADVISORY',
    source: 'RFC 9110 §7.4, §15.5.20; a defence against domain fronting',
    statement: 'An SNI/Host mismatch is answered 421 Misdirected Request.',
    needs: ['otherTenantBaseUrl'],
    reads: 'host-check',
    check: async ({ raw, check, customersUrl, target, otherTenant }) => {
      const otherHost = new URL(otherTenant.baseUrl).host;
      const exchange = await raw.send({
        url: customersUrl(),
        hostHeader: otherHost,
        headers: [['Accept', 'application/json']],
        note: `Host: ${otherHost} on a connection opened for ${new URL(target.baseUrl).hostname}`,
      });
      check.status(exchange, [421], 'An SNI/Host mismatch');
    },
  }),
  // What a conditional request (a validator sent back) may tell (./tenant-isolation-conditional.ts).
  ...TENANT_ISOLATION_CONDITIONAL_RULES,
  // The ways HTTP/2 alone offers to split a key from its tenant (./tenant-isolation-http2.ts).
  ...TENANT_ISOLATION_HTTP2_RULES,
  // A cache before the API keyed on host and URL alone (Authorization ignored) gives the answer it
  // has just stored to the next request for that URL, whoever sends it. Each request with other
  // credentials is therefore sent right after a served one, on the identical URL, so the verdict
  // does not depend on which rules ran before. Only data is evidence here: how the request should
  // have been rejected is the finding of AUTH-MISSING-HEADER, KEY-UNKNOWN-REJECTED and the others
  // (docs/decisions/0017).
  defineRule({
    id: 'TENANT-CACHED-ANSWER-NOT-SHARED',
    level: 'MUST',
    source: 'spec §1, §5 Tenant identification 2; RFC 9111 §3.5',
    statement:
      "Right after GET {base_url}/customers is served to a valid key, the same URL asked without a key, with an unknown key, and (where the target declares them) with the other tenant's key and a development key gets no data of either tenant, from a cache or otherwise.",
    needs: ['credentials.fullAccess'],
    // Without the tenant's own data to look for, not evaluated.
    reads: 'tenant-comparison',
    check: async ({ api, check, customersUrl, knowledge, credential, bearer, target }) => {
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
  }),
  // A cursor or next link is the other tenant's position in its own list. Replayed on this tenant's
  // host with this tenant's key, it may be refused or read as a position in this tenant's list; it
  // must never be believed as naming the other tenant (docs/decisions/0023). A value this tenant's
  // own pages held already is TENANT-OWN-DATA-ONLY's finding, not this rule's.
  defineRule({
    id: 'TENANT-OTHER-PAGE-CURSOR-NO-DATA',
    level: 'MUST',
    source: 'spec §1 (the data of each tenant is isolated); OWASP API Security Top 10 2023 API1',
    statement:
      "The next-page link or cursor of the other tenant's customer list, sent with this tenant's key to this tenant's host, is refused or serves this tenant's own data: never a value of the other tenant's data. Not evaluated when the other tenant's list names no next page.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
    // Without the other tenant's data or a next page of its list, not evaluated.
    reads: 'tenant-comparison',
    check: async ({ api, check, knowledge, bearer, target, otherTenant }) => {
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
  }),
];
