// The journal's header scan finds every spelling of the three tenant fields (spec §5 Tenant
// identification 3: `tenant_id`, `company_id`, `organization_id` are never sent) as a header name:
// prefix `x-`, `x_` or none, `-` or `_` between the words, any letter case, in any place among
// the other header lines, HTTP/1.1's capitalised names and HTTP/2's lower-case ones alike. The
// scan picks names by their length to stay cheap, so these properties hold it to a definition
// that knows nothing of lengths, on names built from the pieces that matter.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { scanHeaders, type HeaderFacts } from '../../../reference-server/journal/header-scan.ts';

const RUNS = 2_000;
const FIELDS = ['tenant', 'company', 'organization'] as const;
const PREFIXES = ['', 'x-', 'x_'] as const;
const SEPARATORS = ['-', '_'] as const;

/** The definition: a tenant field's name once its letter case, its `x-`/`x_` and its `_`s are set aside. */
function isTenantFieldName(name: string): boolean {
  const bare = name
    .toLowerCase()
    .replace(/^x[-_]/, '')
    .replaceAll('_', '-');
  return FIELDS.some((field) => bare === `${field}-id`);
}

/** What the scan finds in header lines given as name/value pairs (`rawHeaders`, flattened). */
function scan(lines: readonly (readonly [string, string])[]): HeaderFacts {
  const req = { rawHeaders: lines.flat() } as unknown as IncomingMessage;
  const facts: HeaderFacts = {
    userAgent: undefined,
    contentType: 'missing',
    accept: 'missing',
    hasBody: false,
    tenantFields: undefined,
    idempotencyKey: undefined,
  };
  scanHeaders(req, facts);
  return facts;
}

/** `text` with each letter's case chosen by `upper`. */
function withCase(text: string, upper: readonly boolean[]): string {
  return [...text].map((char, index) => (upper[index] ? char.toUpperCase() : char.toLowerCase())).join('');
}

const anyCase = (text: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  text.chain((value) =>
    fc
      .array(fc.boolean(), { minLength: value.length, maxLength: value.length })
      .map((upper) => withCase(value, upper)),
  );

/** A spelling of a tenant field as a header name: every prefix, separator and letter case. */
const tenantFieldName = anyCase(
  fc
    .tuple(fc.constantFrom(...PREFIXES), fc.constantFrom(...FIELDS), fc.constantFrom(...SEPARATORS))
    .map(([prefix, field, separator]) => `${prefix}${field}${separator}id`),
);

/** Header lines a client sends beside it, in either protocol's spelling; some as long as a tenant field's name. */
const usualLine = fc.constantFrom<readonly [string, string]>(
  ['Host', 'acme.api.localhost'],
  ['User-Agent', 'sdk/1.0'],
  ['user-agent', 'sdk/1.0'],
  ['Accept', 'application/json'],
  ['accept', 'application/json'],
  ['Authorization', 'Bearer token'],
  ['Content-Type', 'application/json'],
  ['content-length', '0'],
  ['Transfer-Encoding', 'chunked'],
  ['X-Request-Id', 'abc'],
  ['Accept-Encoding', 'gzip'],
  ['X-Forwarded-For', '10.0.0.1'],
  ['traceparent', '00-1-2-01'],
  [':authority', 'acme.api.localhost'],
);

/** Names made of the pieces of tenant field names and of other headers: most are not tenant fields. */
const pieceName = anyCase(
  fc
    .array(
      fc.constantFrom(
        'x',
        '-',
        '_',
        'tenant',
        'company',
        'organization',
        'org',
        'id',
        'ids',
        'd',
        'user',
        'agent',
      ),
      { minLength: 1, maxLength: 5 },
    )
    .map((pieces) => pieces.join('')),
);

describe('header scan: tenant fields as header names', () => {
  test('every spelling of the three fields is found, wherever it stands among other lines', () => {
    fc.assert(
      fc.property(
        fc.array(usualLine, { maxLength: 6 }),
        tenantFieldName,
        fc.array(usualLine, { maxLength: 6 }),
        (before, name, after) => {
          const facts = scan([...before, [name, 'acme'], ...after]);
          assert.deepEqual(facts.tenantFields, [`header:${name.toLowerCase()}`]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a name is flagged exactly when it is a tenant field, whatever its length', () => {
    fc.assert(
      fc.property(pieceName, fc.array(usualLine, { maxLength: 4 }), (name, others) => {
        const facts = scan([...others, [name, 'x']]);
        const expected = isTenantFieldName(name) ? [`header:${name.toLowerCase()}`] : undefined;
        assert.deepEqual(facts.tenantFields, expected, name);
      }),
      { numRuns: RUNS },
    );
  });

  test('the table of every spelling, in lower, upper and capitalised case, is found', () => {
    const spellings = PREFIXES.flatMap((prefix) =>
      FIELDS.flatMap((field) => SEPARATORS.map((separator) => `${prefix}${field}${separator}id`)),
    );
    assert.equal(spellings.length, 18);
    const capitalised = (name: string): string =>
      name.replace(/(^|[-_])([a-z])/g, (_, sep: string, c: string) => sep + c.toUpperCase());
    for (const spelling of spellings) {
      for (const name of [spelling, spelling.toUpperCase(), capitalised(spelling)]) {
        assert.deepEqual(
          scan([
            ['User-Agent', 'sdk'],
            [name, 'acme'],
          ]).tenantFields,
          [`header:${spelling}`],
          name,
        );
      }
    }
  });

  test('look-alikes are not tenant fields: other letters, other dashes, an invisible character', () => {
    // Dotless i, dotted capital I, Cyrillic е and у, the long s and the Kelvin sign (which some
    // case rules take for s and k), a fullwidth and a Unicode hyphen, a zero-width space: none
    // spells the spec's ASCII names, in whatever case.
    const lookAlikes = [
      'x-tenant-\u0131d',
      'X-TENANT-\u0130D',
      'organization-\u0131D',
      'x-t\u0435nant-id',
      'compan\u0443_id',
      'x_organi\u017Fation_id',
      '\u212A-tenant-id',
      'x-tenant\uFF0Did',
      'x\u2010tenant-id',
      'x-tenant-id\u200B',
    ];
    for (const name of lookAlikes) assert.equal(scan([[name, 'acme']]).tenantFields, undefined, name);
  });

  test('the fields the scan reads are still read beside a tenant field of the same length', () => {
    const facts = scan([
      ['X-Company-Id', 'acme'],
      ['Content-Type', 'application/json'],
      ['Company-Id', 'acme'],
      ['User-Agent', 'sdk/1.0'],
      ['X-Organization-Id', 'acme'],
      ['Transfer-Encoding', 'chunked'],
      ['Accept', 'application/json'],
    ]);
    assert.deepEqual(facts.tenantFields, [
      'header:x-company-id',
      'header:company-id',
      'header:x-organization-id',
    ]);
    assert.equal(facts.userAgent, 'sdk/1.0');
    assert.equal(facts.contentType, 'json');
    assert.equal(facts.accept, 'json');
    assert.equal(facts.hasBody, true);
  });
});

test('an Idempotency-Key in any letter case is seen (as a flag: its value is not kept)', () => {
  fc.assert(
    fc.property(anyCase(fc.constant('idempotency-key')), fc.string(), (name, value) => {
      const facts = scan([
        ['Accept', 'application/json'],
        [name, value],
      ]);
      assert.equal(facts.idempotencyKey, true);
    }),
  );
  assert.equal(scan([['Idempotency-Keys', 'x']]).idempotencyKey, undefined);
});
