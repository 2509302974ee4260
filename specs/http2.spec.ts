// RFC 9113 against spec §5: the ways HTTP/2 alone offers to split a key from its tenant — a header
// block with two authorization fields, a host field beside the :authority, one connection used for
// two tenants. Each rule speaks HTTP/2 whenever the target offers it (`overHttp2`), and holds when
// it does not.
import { conformanceRule } from '../conformance/run/test.ts';
import { requireOtherTenantValues, requireOwnValues } from './tenant-data.ts';

const INVALID_BEARER = 'Bearer not-a-valid-key-0000000000000000';

conformanceRule(
  'AUTH-H2-DUPLICATE-AUTHORIZATION-REJECTED',
  async ({ overHttp2, check, customersUrl, bearer }) => {
    const http2 = await overHttp2();
    if (!http2) return;
    const valid = bearer('fullAccess');
    const shapes = [
      { how: 'valid first, one HEADERS frame', fields: [valid, INVALID_BEARER], frames: 1 },
      { how: 'valid second, one HEADERS frame', fields: [INVALID_BEARER, valid], frames: 1 },
      { how: 'valid first, the second in a CONTINUATION frame', fields: [valid, INVALID_BEARER], frames: 2 },
      { how: 'valid second, in a CONTINUATION frame', fields: [INVALID_BEARER, valid], frames: 2 },
    ];
    for (const { how, fields, frames } of shapes) {
      const exchange = await http2.send({
        url: customersUrl(),
        headers: [
          ['Accept', 'application/json'],
          ...fields.map((value): [string, string] => ['authorization', value]),
        ],
        headerFrames: frames,
        note: `two authorization fields, ${how}`,
      });
      check.rejected(exchange, `Two authorization fields (${how})`);
      check.status(exchange, [400, 401], `Two authorization fields (${how})`);
    }
  },
);

conformanceRule(
  'TENANT-H2-AUTHORITY-HOST-CONFLICT-NO-DATA',
  async ({ overHttp2, check, customersUrl, credential, otherTenant, knowledge }) => {
    const http2 = await overHttp2();
    if (!http2) return;
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
      });
    const ownKey = await conflicting(credential('fullAccess'), "this tenant's key");
    check.noDataOf(ownKey, [knowledge.other], "This tenant's key, the other tenant in the host field");
    const otherKey = await conflicting(credential('otherTenant'), "the other tenant's key");
    check.noDataOf(otherKey, [knowledge.own], "The other tenant's key, this tenant in the :authority");
  },
);

conformanceRule(
  'TENANT-H2-AUTHORITY-HOST-CONFLICT-REJECTED',
  async ({ overHttp2, check, customersUrl, bearer, otherTenant }) => {
    const http2 = await overHttp2();
    if (!http2) return;
    const exchange = await http2.send({
      url: customersUrl(),
      hostField: new URL(otherTenant.baseUrl).host,
      headers: [
        ['Accept', 'application/json'],
        ['Authorization', bearer('fullAccess')],
      ],
      note: ":authority of this tenant, host field of the other, this tenant's key",
    });
    check.rejected(exchange, 'An :authority and a host field naming two tenants');
  },
);

// A client that coalesces (RFC 9113 §9.1.1) sends the second tenant's request on the connection it
// opened for the first, when one certificate covers both. A server that ties a connection to the
// tenant of its first request, or authenticates on one tenant and serves another, gives a tenant's
// data to the wrong request here, and only here.
conformanceRule(
  'TENANT-H2-COALESCED-CONNECTION-ISOLATED',
  async ({ overHttp2, check, customersUrl, credential, otherTenant, knowledge }) => {
    const http2 = await overHttp2();
    if (!http2) return;
    requireOwnValues(knowledge);
    requireOtherTenantValues(knowledge);
    const otherUrl = `${otherTenant.baseUrl}/customers`;
    const authorization = (key: string): [string, string][] => [
      ['Accept', 'application/json'],
      ['Authorization', `Bearer ${key}`],
    ];
    const opened = `on a connection opened for ${new URL(customersUrl()).hostname}`;
    const [own, otherWithOther, otherWithOwn] = await http2.sendOverOneConnection([
      {
        url: customersUrl(),
        headers: authorization(credential('fullAccess')),
        note: `first request ${opened}`,
      },
      {
        url: otherUrl,
        headers: authorization(credential('otherTenant')),
        note: `the other tenant's request and key, ${opened}`,
      },
      {
        url: otherUrl,
        headers: authorization(credential('fullAccess')),
        note: `the other tenant's request with this tenant's key, ${opened}`,
      },
    ]);
    if (!own || !otherWithOther || !otherWithOwn)
      throw new Error('three exchanges were sent, fewer came back');
    check.status(own, [200], "This tenant's request that opens the connection");
    const what = "The other tenant's request with its own key, on this tenant's connection";
    check.noDataOf(otherWithOther, [knowledge.own], what);
    check.status(otherWithOther, [200, 421], what);
    check.rejected(
      otherWithOwn,
      "The other tenant's request with this tenant's key, on this tenant's connection",
      {
        noDataOf: [knowledge.own, knowledge.other],
      },
    );
  },
);
