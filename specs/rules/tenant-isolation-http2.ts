// RFC 9113 against spec §5: the ways HTTP/2 alone offers to split a key from its tenant — a host
// field beside the :authority, one connection used for two tenants. Each rule speaks HTTP/2
// whenever the target offers it (`overHttp2`), and is not applicable when it does not.
import { defineRule } from '../../conformance/run/rule-declaration.ts';
import type { Checks } from '../../conformance/judging/checks.ts';
import { Inconclusive } from '../../conformance/judging/failures.ts';
import { isRefusal, type Exchange } from '../../conformance/requests/exchange.ts';
import type { TenantValues } from '../../conformance/judging/tenant-knowledge.ts';
import { requireOtherTenantValues, requireOwnValues } from '../tenant-data.ts';

export const TENANT_ISOLATION_HTTP2_RULES = [
  defineRule({
    id: 'TENANT-H2-AUTHORITY-HOST-CONFLICT-NO-DATA',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1; RFC 9113 §8.3.1',
    statement:
      "Over HTTP/2, in a request whose :authority names this tenant and whose host field names the other tenant, no key gets data of a tenant other than its own: this tenant's key gets none of the other's, the other tenant's key none of this one's (a reset stream holds none).",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
    http2Only: true,
    reads: 'tenant-comparison',
    check: async ({ overHttp2, check, customersUrl, credential, otherTenant, knowledge }) => {
      const http2 = await overHttp2();
      requireOwnValues(knowledge);
      requireOtherTenantValues(knowledge);
      const conflicting = (key: string, whose: string) =>
        http2.send({
          url: customersUrl(),
          hostField: new URL(otherTenant.baseUrl).host,
          headers: [
            ['Accept', 'application/json'],
            ['Authorization', `Bearer ${key}`],
          ],
          note: `:authority of this tenant, host field of the other, ${whose}`,
          refusalExpected: true,
        });
      const ownKey = await conflicting(credential('fullAccess'), "this tenant's key");
      noDataUnlessReset(
        check,
        ownKey,
        [knowledge.other],
        "This tenant's key, the other tenant in the host field",
      );
      const otherKey = await conflicting(credential('otherTenant'), "the other tenant's key");
      noDataUnlessReset(
        check,
        otherKey,
        [knowledge.own],
        "The other tenant's key, this tenant in the :authority",
      );
    },
  }),
  defineRule({
    id: 'TENANT-H2-AUTHORITY-HOST-CONFLICT-REJECTED',
    level: 'HTTP',
    source: 'RFC 9113 §8.3.1',
    statement:
      "Over HTTP/2, a request whose :authority names this tenant and whose host field names the other tenant is rejected as malformed (its stream reset, or a 4xx), with data of neither tenant, even with this tenant's key.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl'],
    http2Only: true,
    reads: 'host-check',
    check: async ({ overHttp2, check, customersUrl, bearer, otherTenant }) => {
      const http2 = await overHttp2();
      const exchange = await http2.send({
        url: customersUrl(),
        hostField: new URL(otherTenant.baseUrl).host,
        headers: [
          ['Accept', 'application/json'],
          ['Authorization', bearer('fullAccess')],
        ],
        note: ":authority of this tenant, host field of the other, this tenant's key",
        refusalExpected: true,
      });
      // RFC 9113 §8.1.1: a malformed request is a stream error; an answer (4xx) before it is allowed.
      check.rejected(exchange, 'An :authority and a host field naming two tenants', {
        allowNoResponse: true,
      });
    },
  }),
  // A client that coalesces (RFC 9113 §9.1.1) sends the other tenant's requests on the connection it
  // opened for this one, when one certificate covers both. A server that ties what it learnt of the
  // first request (its tenant, its key) to the connection gives data to a later request that its
  // key does not own, here and only here. Serving the other tenant or answering 421 are both right;
  // a reset or a closed connection (GOAWAY) only refuses.
  defineRule({
    id: 'TENANT-H2-COALESCED-CONNECTION-ISOLATED',
    level: 'MUST',
    source: 'spec §5 Tenant identification 1; RFC 9113 §9.1.1; RFC 9110 §7.4',
    statement:
      "Over HTTP/2, on one connection opened (TLS SNI) for this tenant and used first for its own request with its key, no later request gets data its key does not own: the other tenant's request with its key gets none of this tenant's data, with this tenant's key none of the other's, and a request without a key, for either tenant, none at all.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'],
    http2Only: true,
    reads: 'tenant-comparison',
    check: async ({ overHttp2, check, customersUrl, credential, otherTenant, knowledge }) => {
      const http2 = await overHttp2();
      requireOwnValues(knowledge);
      requireOtherTenantValues(knowledge);
      const otherUrl = `${otherTenant.baseUrl}/customers`;
      const keyed = (key?: string): [string, string][] => [
        ['Accept', 'application/json'],
        ...(key === undefined ? [] : [['Authorization', `Bearer ${key}`] as [string, string]]),
      ];
      const opened = `on a connection opened for ${new URL(customersUrl()).hostname}`;
      const later = (url: string, key: string | undefined, what: string) => ({
        url,
        headers: keyed(key),
        note: `${what}, ${opened}`,
        refusalExpected: true,
      });
      const [own, ...rest] = await http2.sendOverOneConnection([
        { url: customersUrl(), headers: keyed(credential('fullAccess')), note: `first request ${opened}` },
        later(otherUrl, credential('otherTenant'), "the other tenant's request and key"),
        later(otherUrl, credential('fullAccess'), "the other tenant's request with this tenant's key"),
        later(otherUrl, undefined, "the other tenant's request without a key"),
        later(customersUrl(), undefined, "this tenant's request without a key"),
      ]);
      if (own?.kind !== 'response' || own.status !== 200)
        throw new Inconclusive(
          "This tenant's request that opens the connection was not served (200): what the connection carries after it can't be told.",
        );
      const [otherWithOther, otherWithOwn, otherWithout, ownWithout] = rest;
      const judged: [Exchange | undefined, (TenantValues | undefined)[], string][] = [
        [
          otherWithOther,
          [knowledge.own],
          "The other tenant's request with its own key, on this tenant's connection",
        ],
        [
          otherWithOwn,
          [knowledge.other],
          "The other tenant's request with this tenant's key, on this tenant's connection",
        ],
        [
          otherWithout,
          [knowledge.own, knowledge.other],
          "The other tenant's request without a key, on this tenant's connection",
        ],
        [
          ownWithout,
          [knowledge.own, knowledge.other],
          "This tenant's request without a key, after a served one on its connection",
        ],
      ];
      await check.each(judged, ([exchange, tenants, what]) => {
        if (!exchange) throw new Error('fewer exchanges came back than were sent');
        noDataUnlessReset(check, exchange, tenants, what);
      });
    },
  }),
];

/** No data of `tenants` in the answer; a request refused without one (a reset) holds no data. */
function noDataUnlessReset(
  check: Checks,
  exchange: Exchange,
  tenants: readonly (TenantValues | undefined)[],
  what: string,
): void {
  if (exchange.kind === 'failure' && isRefusal(exchange)) return;
  check.noDataOf(exchange, tenants, what);
}
