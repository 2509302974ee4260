// The Host and Authorization values of every request are read by scanning characters rather than
// by regular expressions (they are on every request's path). These properties hold the scans to
// the regular expressions that define them, on strings made of the characters that matter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hostnameOf } from '../../../reference-server/http/hosts.ts';
import { hostPortMatches } from '../../../reference-server/http/field-lines.ts';
import {
  parseAuthorization,
  type AuthorizationHeader,
} from '../../../reference-server/http/authorization-header.ts';

const RUNS = 2_000;

function textOf(characters: string[]): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...characters), { maxLength: 24 }).map((chars) => chars.join(''));
}

const hostValue = textOf(['a', 'B', '0', '8', '4', '3', ':', '.', '[', ']', '-']);

test('hostnameOf drops a final `:` and digits (/:\\d*$/), lower-cases, and drops one final dot', () => {
  const byExpression = (host: string): string =>
    (host.startsWith('[') ? host : host.replace(/:\d*$/, '')).toLowerCase().replace(/\.$/, '');
  fc.assert(
    fc.property(hostValue, (host) => hostnameOf(host) === byExpression(host)),
    { numRuns: RUNS },
  );
  assert.equal(hostnameOf('Acme.API.localhost.:8443'), 'acme.api.localhost');
  assert.equal(hostnameOf('acme.api.localhost:'), 'acme.api.localhost');
  assert.equal(hostnameOf('[::1]:8443'), '[::1]:8443');
});

test('hostPortMatches compares the digits after a final `:` (/:(\\d+)$/) with the port', () => {
  const byExpression = (host: string, port: number): boolean => {
    const digits = /:(\d+)$/.exec(host)?.[1];
    return digits === undefined || Number(digits) === port;
  };
  fc.assert(
    fc.property(
      hostValue,
      fc.constantFrom(0, 80, 443, 8443),
      (host, port) => hostPortMatches([host], port) === byExpression(host, port),
    ),
    { numRuns: RUNS },
  );
  assert.equal(hostPortMatches(['acme.api.localhost:8443'], 8443), true);
  assert.equal(hostPortMatches(['acme.api.localhost:08443'], 8443), true);
  assert.equal(hostPortMatches(['acme.api.localhost:443'], 8443), false);
  assert.equal(hostPortMatches(['acme.api.localhost:'], 8443), true);
});

test('parseAuthorization reads the scheme and the token as the RFC 9110 and RFC 6750 expressions do', () => {
  const byExpression = (value: string): AuthorizationHeader => {
    if (value === '') return { kind: 'missing' };
    const scheme = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/.exec(value)?.[0];
    if (scheme === undefined || scheme.toLowerCase() !== 'bearer') return { kind: 'not-bearer' };
    const rest = value.slice(scheme.length);
    const token = rest.replace(/^ +/, '');
    if (token === rest || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) return { kind: 'malformed' };
    return { kind: 'bearer', token };
  };
  const value = fc.oneof(
    textOf(['B', 'b', 'e', 'a', 'r', 'R', ' ', '\t', 'x', '1', '=', '"', ',']),
    textOf(['x', '1', '=', ' ', '"']).map((rest) => `Bearer${rest}`),
  );
  fc.assert(
    fc.property(value, (header) => {
      assert.deepEqual(parseAuthorization([header]), byExpression(header));
    }),
    { numRuns: RUNS },
  );
  assert.deepEqual(parseAuthorization(['Bearer  mbk_prod_x']), { kind: 'bearer', token: 'mbk_prod_x' });
  assert.deepEqual(parseAuthorization(['Bearer\tmbk_prod_x']), { kind: 'malformed' });
  assert.deepEqual(parseAuthorization(['BEARER mbk_prod_x']), { kind: 'bearer', token: 'mbk_prod_x' });
  assert.deepEqual(parseAuthorization(['Bearerx mbk_prod_x']), { kind: 'not-bearer' });
});
