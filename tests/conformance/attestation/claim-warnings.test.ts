// The host-map warning of `verify` (attestation/claim-warnings.ts): every loopback, private or
// otherwise non-public address is recognised in whatever form a resolver takes it, including an
// IPv4 address carried in IPv6, by a well-kept address library (ipaddr.js) rather than our parser.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { claimWarnings, isPrivateAddress } from '../../../conformance/attestation/claim-warnings.ts';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';

describe('isPrivateAddress', () => {
  test('loopback, private and mapped forms, however written, are recognised', () => {
    for (const address of [
      '127.0.0.1',
      '127.1',
      '0x7f.0.0.1',
      '2130706433',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '0::1',
      '::0:1',
      '0:0:0:0:0:0:0:1',
      '::',
      '[::1]',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a00:1',
      '64:ff9b::7f00:1',
      '64:ff9b::10.0.0.1',
      '2002:7f00:1::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
    ])
      assert.equal(isPrivateAddress(address), true, address);
  });

  test('public addresses, and IPv6 forms carrying a public IPv4 one, are not', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
    ])
      assert.equal(isPrivateAddress(address), false, address);
  });

  test('a name is not an address', () => {
    for (const name of ['localhost.example', 'api.acme.example', ''])
      assert.equal(isPrivateAddress(name), false, name);
  });

  test('an IPv4 address carried in IPv6 (mapped, NAT64, 6to4) is judged as the IPv4 one (property)', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const bytes = v4.split('.').map(Number);
        const hex = (high: number, low: number): string => ((high << 8) | low).toString(16);
        const [a = 0, b = 0, c = 0, d = 0] = bytes;
        const expected = isPrivateAddress(v4);
        assert.equal(isPrivateAddress(`::ffff:${v4}`), expected, `::ffff:${v4}`);
        assert.equal(isPrivateAddress(`::ffff:${hex(a, b)}:${hex(c, d)}`), expected);
        assert.equal(isPrivateAddress(`64:ff9b::${hex(a, b)}:${hex(c, d)}`), expected);
        assert.equal(isPrivateAddress(`2002:${hex(a, b)}:${hex(c, d)}::1`), expected);
      }),
    );
  });

  test('every loopback address, in any IPv4 form, is recognised (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (low) => {
        const value = 0x7f000000 + low;
        assert.equal(isPrivateAddress(String(value)), true, String(value));
        assert.equal(isPrivateAddress(`127.${low >> 16}.${(low >> 8) & 0xff}.${low & 0xff}`), true);
      }),
    );
  });
});

test('verify warns on a host map to any such form', () => {
  const report = {
    target: {
      name: 'acme',
      mode: 'file',
      baseUrl: 'https://api.acme.example/v1',
      hosts: {
        'a.acme.example': '::ffff:7f00:1',
        'b.acme.example': '64:ff9b::7f00:1',
        'c.acme.example': '::0:1',
      },
    },
  } as unknown as ConformanceReport;
  const warnings = claimWarnings(report).filter((warning) => warning.startsWith('Host map: '));
  assert.deepEqual(
    warnings.map((warning) => /^Host map: (\S+) was sent to/.exec(warning)?.[1]),
    ['a.acme.example', 'b.acme.example', 'c.acme.example'],
  );
});

describe('where plain HTTP was probed', () => {
  const plainHttpWarnings = (baseUrl: string, plainHttpBaseUrl: string | undefined): string[] =>
    claimWarnings({
      target: { name: 'acme', mode: 'file', baseUrl, ...(plainHttpBaseUrl ? { plainHttpBaseUrl } : {}) },
    } as unknown as ConformanceReport).filter((warning) => warning.startsWith('Plain HTTP was probed'));

  test("the default (the base URL's host over http://, port 80), however written, is not warned of", () => {
    for (const plain of [
      'http://api.acme.example/v1',
      'http://API.Acme.Example:80/v1',
      'http://api.acme.example/',
      undefined,
    ])
      assert.deepEqual(plainHttpWarnings('https://api.acme.example:8443/v1', plain), [], String(plain));
  });

  test('another port, another host or another scheme is warned of, naming both', () => {
    assert.deepEqual(plainHttpWarnings('https://api.acme.example/v1', 'http://api.acme.example:9/v1'), [
      "Plain HTTP was probed at http://api.acme.example:9/v1, not at the base URL's host on port 80 (http://api.acme.example): the plain-HTTP rules pass on a refused connection, so they say nothing of plain HTTP where the base URL is.",
    ]);
    for (const plain of [
      'http://www.acme.example/v1',
      'http://api.acme.example.evil.example/v1',
      'https://api.acme.example/v1',
      'http://api.acme.example:8080/v1',
      'not a URL',
    ])
      assert.equal(plainHttpWarnings('https://api.acme.example/v1', plain).length, 1, plain);
  });
});
