// What the run could reach (conformance/report/reach.ts): requests by connection kind, the client
// address(es), the backends the answers revealed, and the limits said when one address or one
// backend is all the run saw.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLACK_BOX_LIMIT, reachLines, reachOf } from '../../../conformance/report/reach.ts';
import type { RunExchange } from '../../../conformance/report/har.ts';
import { ALPN_HTTP11_NOTE } from '../../../conformance/requests/raw-client.ts';
import type { TlsEvidence } from '../../../schemas/generated/conformance-report.ts';

function exchange(
  url: string,
  options: { h2?: boolean; note?: string; headers?: Record<string, string> } = {},
): RunExchange {
  return {
    madeBy: 'RULE',
    exchange: {
      id: url,
      startedAt: new Date(0).toISOString(),
      durationMs: 1,
      request: {
        method: 'GET',
        url,
        headers: [],
        ...(options.note ? { note: options.note } : {}),
        ...(options.h2 ? { httpVersion: 'HTTP/2' as const } : {}),
      },
      response: {
        status: 200,
        body: '',
        headers: Object.entries(options.headers ?? {}).map(([name, value]) => ({ name, value })),
      },
    },
  };
}

const TLS = (clientAddress?: string): TlsEvidence => ({
  field: 'baseUrl',
  host: 'acme.api.localhost:443',
  ...(clientAddress ? { clientAddress } : {}),
  fingerprint256: Array.from({ length: 32 }, () => 'AB').join(':'),
  subject: 'CN=x',
  issuer: 'CN=y',
  validFrom: new Date(0).toISOString(),
  validTo: new Date(0).toISOString(),
  alpn: { offered: ['http/1.1'], agreed: 'http/1.1' },
});

const URL_ = 'https://acme.api.localhost/v1/customers';

test('requests by connection kind, in a fixed order, kinds without a request left out', () => {
  const reach = reachOf(
    [
      exchange(URL_),
      exchange(URL_, { note: `x; ${ALPN_HTTP11_NOTE}` }),
      exchange(URL_, { note: ALPN_HTTP11_NOTE }),
      exchange(URL_, { h2: true }),
      exchange('http://acme.api.localhost/v1/customers'),
    ],
    [TLS('127.0.0.1')],
  );
  assert.deepEqual(reach.connections, [
    { kind: 'HTTP/1.1, no ALPN offered', requests: 1 },
    { kind: 'HTTP/1.1, ALPN http/1.1 offered', requests: 2 },
    { kind: 'HTTP/2, ALPN h2', requests: 1 },
    { kind: 'plain HTTP', requests: 1 },
  ]);
  assert.deepEqual(reachOf([exchange(URL_, { h2: true })], []).connections, [
    { kind: 'HTTP/2, ALPN h2', requests: 1 },
  ]);
});

test('one client address and one backend: both limits said; two of each: neither', () => {
  const one = reachOf(
    [exchange(URL_, { headers: { Server: 'nginx', 'X-Served-By': 'pod-a' } })],
    [TLS('10.0.0.5'), TLS('10.0.0.5')],
  );
  assert.deepEqual(one.clientAddresses, ['10.0.0.5']);
  assert.equal(one.backends, undefined);
  assert.equal(one.limits.length, 3);
  assert.equal(one.limits[0], BLACK_BOX_LIMIT);
  assert.match(one.limits[1] ?? '', /one client address \(10\.0\.0\.5\).*verify --check-live/);
  assert.match(one.limits[2] ?? '', /No answer named a second backend/);
  const two = reachOf(
    [
      exchange(URL_, { headers: { 'X-Served-By': 'pod-b', Via: '1.1 lb' } }),
      exchange(URL_, { headers: { 'x-served-by': 'pod-a', Via: '1.1 lb' } }),
    ],
    [TLS('10.0.0.5'), TLS('10.0.0.6')],
  );
  assert.deepEqual(two.clientAddresses, ['10.0.0.5', '10.0.0.6']);
  assert.deepEqual(two.backends, [{ field: 'x-served-by', values: ['pod-a', 'pod-b'] }]);
  assert.deepEqual(two.limits, [BLACK_BOX_LIMIT]);
  assert.match(
    reachLines(two).join('\n'),
    /More than one backend answered: x-served-by was "pod-a", "pod-b"/,
  );
  assert.match(reachLines(two).join('\n'), /Client addresses: 10\.0\.0\.5, 10\.0\.0\.6/);
  // An address unknown (no handshake recorded) is no second address.
  assert.match(reachOf([], [TLS()]).limits[1] ?? '', /one client address:/);
});

test('which connection kinds each rule was checked over: grouped, levels counted, other senders left out', () => {
  const by = (madeBy: string, run: RunExchange): RunExchange => ({ ...run, madeBy });
  const reach = reachOf(
    [
      by('AUTH-MISSING-HEADER', exchange(URL_)),
      by('AUTH-MISSING-HEADER', exchange(URL_, { note: ALPN_HTTP11_NOTE })),
      by('AUTH-MISSING-HEADER', exchange(URL_, { h2: true })),
      by('TENANT-CROSS-KEY-REJECTED', exchange(URL_, { note: ALPN_HTTP11_NOTE })),
      by('TENANT-CROSS-KEY-REJECTED', exchange(URL_)),
      by('AUTH-MISSING-HEADER-401', exchange(URL_)),
      by('TENANT-CROSS-KEY-INDISTINGUISHABLE', exchange(URL_)),
      by('learning', exchange(URL_, { note: ALPN_HTTP11_NOTE })),
    ],
    [TLS('127.0.0.1')],
  );
  assert.deepEqual(reach.checkedOver, [
    {
      kinds: ['HTTP/1.1, no ALPN offered', 'HTTP/1.1, ALPN http/1.1 offered', 'HTTP/2, ALPN h2'],
      rules: ['AUTH-MISSING-HEADER'],
    },
    {
      kinds: ['HTTP/1.1, no ALPN offered', 'HTTP/1.1, ALPN http/1.1 offered'],
      rules: ['TENANT-CROSS-KEY-REJECTED'],
    },
    {
      kinds: ['HTTP/1.1, no ALPN offered'],
      rules: ['AUTH-MISSING-HEADER-401', 'TENANT-CROSS-KEY-INDISTINGUISHABLE'],
    },
  ]);
  assert.ok(
    reachLines(reach).includes(
      'Rules by the connections they were checked over: [HTTP/1.1, no ALPN offered; HTTP/1.1, ALPN http/1.1 offered; HTTP/2, ALPN h2] 1 rule (1 MUST) — [HTTP/1.1, no ALPN offered; HTTP/1.1, ALPN http/1.1 offered] 1 rule (1 MUST) — [HTTP/1.1, no ALPN offered] 2 rules (1 HTTP, 1 ADVISORY).',
    ),
    reachLines(reach).join('\n'),
  );
  assert.equal(reachOf([exchange(URL_)], []).checkedOver, undefined, 'no rule sent anything: nothing said');
});
