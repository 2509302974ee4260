// Each decision of the run's checker (conformance/judging/run-checker.ts, run-facts.ts) at its
// edge, on hand-made recorded exchanges: how a recorded Authorization is read (the scheme, the
// variable's spellings, what is left to its own rule), which host names a request gave, and what
// a run's facts make of a target's hosts and keys. run-checker.test.ts shows each breach once;
// here the conditions between them are pinned down (npm run mutation:judging).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { credentialOf, judgeExchange, judgeRun } from '../../../conformance/judging/run-checker.ts';
import { KEY_ROLES, runFactsOf } from '../../../conformance/judging/run-facts.ts';
import {
  ACME,
  FACTS,
  GLOBEX,
  GLOBEX_LIST,
  SANDBOX,
  fields,
  key,
  other,
  own,
  recorded,
} from './run-checker-exchanges.ts';

const kindOf = (value: string, h2 = false) => credentialOf([value], h2, FACTS.keys).kind;
const breachOf = (value: string) => {
  const credential = credentialOf([value], false, FACTS.keys);
  return credential.kind === 'breach' ? credential.breach : credential.kind;
};

describe('a recorded Authorization, read', () => {
  test('the Bearer scheme only at the start, alone or followed by blanks', () => {
    assert.equal(breachOf('Token bearer $ACME_FULL'), 'other-scheme');
    assert.equal(breachOf('Bearer'), 'empty-or-cut-token');
    assert.equal(breachOf('BEARER   $ACME_FULL'), 'key');
    assert.equal(breachOf('Bearer$ACME_FULL'), 'other-scheme');
    assert.equal(breachOf('Bearer $ACME_FULL '), 'key');
  });

  test("a key's variable in either spelling; a longer name or another variable is not that key", () => {
    assert.deepEqual(credentialOf(['Bearer ${ACME_RO}'], false, FACTS.keys), {
      kind: 'key',
      role: KEY_ROLES.readOnly,
    });
    assert.deepEqual(credentialOf(['Bearer $ACME_REVOKED'], false, FACTS.keys), {
      kind: 'key',
      role: KEY_ROLES.revoked,
    });
    // A name the run does not know that only begins like one of its keys' is no mention of it.
    assert.equal(breachOf('Bearer $ACME_FULLER'), 'unjudged');
    assert.equal(breachOf('Bearer ${ACME_FULL'), 'altered-key');
    assert.equal(breachOf('Bearer x$ACME_FULL'), 'altered-key');
    assert.equal(breachOf('Bearer $ACME_FULL_2'), 'unjudged');
  });

  const READINGS: readonly [string, readonly (readonly [string, string])[]][] = [
    [
      'quotes around a key are a breach; around anything else, left to HTTP',
      [
        ["Bearer '$ACME_FULL'", 'quoted-key'],
        ['Bearer "${ACME_FULL}"', 'quoted-key'],
        ['Bearer "$ACME_FULL\'', 'altered-key'],
        ['Bearer "sk_live_1"', 'unjudged'],
        ['Bearer x"$ACME_FULL"', 'altered-key'],
        ['Bearer "$ACME_FULL"x', 'altered-key'],
      ],
    ],
    [
      'a blank or comma in the token: a cut key when no key is named, its own rule when one is',
      [
        ['Bearer abc def', 'empty-or-cut-token'],
        ['Bearer abc,def', 'empty-or-cut-token'],
        ['Bearer $ACME_FULL,x', 'unjudged'],
        ['Bearer $ACME_FULL\t$ACME_RO', 'unjudged'],
      ],
    ],
    [
      'a token68 that names no key is an unknown key; any other text is left to HTTP',
      [
        ['Bearer sk-live.0~1+/2==', 'unknown-key'],
        ['Bearer ab@cd', 'unjudged'],
        ['Bearer =abc', 'unjudged'],
        ['Bearer ab=cd', 'unjudged'],
      ],
    ],
  ];
  for (const [what, readings] of READINGS)
    test(what, () => {
      for (const [value, expected] of readings) assert.equal(breachOf(value), expected, value);
    });

  test('two Authorization fields are a breach whatever they hold; over HTTP/2, its own', () => {
    assert.deepEqual(credentialOf(['Bearer $ACME_FULL', 'Bearer $ACME_FULL'], false, FACTS.keys), {
      kind: 'breach',
      breach: 'two-authorization-fields',
    });
    assert.equal(kindOf('Bearer $ACME_FULL', true), 'key');
    assert.deepEqual(credentialOf([], true, FACTS.keys), { kind: 'none' });
    assert.deepEqual(credentialOf(['', ''], true, FACTS.keys), {
      kind: 'breach',
      breach: 'two-authorization-fields-h2',
    });
  });

  test('over any token, a key is recognised exactly when the token is one of its spellings', () => {
    const variables = [...FACTS.keys.keys()];
    fc.assert(
      fc.property(
        fc.constantFrom(...variables, 'OTHER', 'ACME'),
        fc.constantFrom('$N', '${N}', '"$N"', '$N!', 'x$N', '$N $N'),
        fc.constantFrom('Bearer ', 'bearer\t', 'BEARER  '),
        (name, spelling, scheme) => {
          const credential = credentialOf([`${scheme}${spelling.replaceAll('N', name)}`], false, FACTS.keys);
          const plain = spelling === '$N' || spelling === '${N}';
          assert.equal(credential.kind === 'key', plain && FACTS.keys.has(name));
          if (credential.kind === 'key') assert.equal(credential.role, FACTS.keys.get(name));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the host names a request gave', () => {
  const withHosts = (hosts: string[], h2 = false, body = GLOBEX_LIST, variable = 'GLOBEX_FULL') => {
    const exchange = recorded({ url: `${ACME}/customers`, body, h2, headers: [key(variable)] });
    exchange.request.headers = fields([
      ...hosts.map((host): [string, string] => ['Host', host]),
      key(variable),
    ]);
    return judgeExchange(exchange, FACTS)?.kind;
  };

  test('over HTTP/2, one host field naming another host than the URL is the SNI mismatch, two are their own', () => {
    assert.equal(
      withHosts(['globex.api.localhost:8443'], true, GLOBEX_LIST, 'ACME_FULL'),
      'host-names-two-tenants',
    );
    assert.equal(
      withHosts(['acme.api.localhost:8443', 'globex.api.localhost'], true, GLOBEX_LIST, 'ACME_FULL'),
      'host-names-two-tenants-h2',
    );
    assert.equal(
      withHosts(['acme.api.localhost:8443', 'globex.api.localhost'], false, GLOBEX_LIST, 'ACME_FULL'),
      'host-names-two-tenants',
    );
  });

  test('a Host field is compared by host name: letter case, port and blanks aside', () => {
    assert.equal(
      withHosts([' ACME.api.LOCALHOST:9999 '], false, own && '{"n":"Acme Anvils Ltd"}', 'ACME_FULL'),
      undefined,
    );
    assert.equal(withHosts([], false, '{"n":"Acme Anvils Ltd"}', 'ACME_FULL'), undefined);
  });

  test("a key served its own data by two names, neither its tenant's, is still a breach", () => {
    // The URL names acme, the Host a host of no tenant: globex's key got globex's data.
    assert.equal(withHosts(['initech.api.localhost']), 'host-names-two-tenants');
    // A Host naming globex, the key's own tenant: served by the name of its own host.
    assert.equal(withHosts(['globex.api.localhost']), undefined);
    // acme's key, acme's data, the Host naming globex: its own tenant by the URL's name.
    assert.equal(
      withHosts(['globex.api.localhost'], false, '{"n":"Acme Anvils Ltd"}', 'ACME_FULL'),
      undefined,
    );
  });

  test('a host field that is no host name is taken as written, and is no declared host', () => {
    // Port 99999 makes it no URL: not a name of globex's host, so globex's key and data break it.
    assert.equal(withHosts(['globex.api.localhost:99999']), 'host-names-two-tenants');
  });
});

describe('what is judged of an answer', () => {
  test('the values named are at most three, of the tenant whose data the answer held', () => {
    const many = JSON.stringify({ a: 'Globex Corp', b: 'cus_globex_000001', c: 'Acme Anvils Ltd' });
    const found = judgeExchange(recorded({ headers: [key('ACME_FULL')], body: many }), FACTS);
    assert.equal(found?.kind, 'own-key-other-data');
    assert.equal(found?.tenant, other);
    assert.deepEqual(new Set(found?.values), new Set(['Globex Corp', 'cus_globex_000001']));
    const wide = runFactsOf(
      { baseUrl: ACME, credentialVariables: { fullAccess: 'K' } },
      { own: { label: 'acme', values: new Set(['v1', 'v2', 'v3', 'v4']) } },
    );
    const keyless = recorded({ body: '["v1","v2","v3","v4"]' });
    assert.equal(judgeExchange(keyless, wide)?.values.length, 3);
  });

  test('the first breach of the history order is kept per exchange; every exchange is judged', () => {
    const history = [
      { madeBy: 'A', exchange: recorded({ headers: [] }) },
      { madeBy: 'B', exchange: recorded({ headers: [key('ACME_FULL')] }) },
      { madeBy: 'C', exchange: recorded({ url: `${SANDBOX}/customers`, headers: [key('ACME_FULL')] }) },
    ];
    assert.deepEqual(
      judgeRun(history, FACTS).map((violation) => [violation.sender, violation.kind]),
      [
        ['A', 'keyless'],
        ['C', 'production-key-on-sandbox'],
      ],
    );
  });

  test("a valid key on its tenant's host, the other tenant's key on the other host: no breach", () => {
    assert.equal(
      judgeExchange(
        recorded({ url: `${GLOBEX}/customers`, headers: [key('GLOBEX_FULL')], body: GLOBEX_LIST }),
        FACTS,
      ),
      undefined,
    );
  });
});

describe("a run's facts, from the target's declaration", () => {
  test('each declared host is the place of its role; absent ones are no place', () => {
    const facts = runFactsOf({ baseUrl: 'https://ACME.example/v1', credentialVariables: {} }, {});
    assert.deepEqual([...facts.places], [['acme.example', { tenant: 'own', environment: 'production' }]]);
    assert.deepEqual([...(facts.unjudgedHosts ?? [])], []);
    assert.deepEqual([...FACTS.places.keys()].sort(), [
      'acme.api.localhost',
      'acme.sandbox.api.localhost',
      'globex.api.localhost',
    ]);
  });

  test('a host given two roles is unjudged and no place; a host given one role twice stays a place', () => {
    const facts = runFactsOf(
      { baseUrl: ACME, sandboxBaseUrl: 'https://acme.api.localhost:9443/v1', credentialVariables: {} },
      {},
    );
    assert.deepEqual([...(facts.unjudgedHosts ?? [])], ['acme.api.localhost']);
    assert.equal(facts.places.has('acme.api.localhost'), false);
  });

  test('a variable given two credentials of the same role stays that key; of two roles, no key', () => {
    const same = runFactsOf({ baseUrl: ACME, credentialVariables: { fullAccess: 'K', readOnly: 'K' } }, {});
    assert.equal(same.keys.get('K'), KEY_ROLES.fullAccess);
    const twoRoles = runFactsOf(
      { baseUrl: ACME, credentialVariables: { readOnly: 'K', revoked: 'K', sandbox: 'S' } },
      {},
    );
    assert.deepEqual([...twoRoles.keys.keys()], ['S']);
  });

  test('each credential is the role its name says', () => {
    assert.deepEqual(KEY_ROLES, {
      fullAccess: { tenant: 'own', environment: 'production', reads: true, revoked: false },
      readOnly: { tenant: 'own', environment: 'production', reads: true, revoked: false },
      probe: { tenant: 'own', environment: 'production', reads: true, revoked: false },
      noCustomersPermission: { tenant: 'own', environment: 'production', reads: false, revoked: false },
      revoked: { tenant: 'own', environment: 'production', reads: true, revoked: true },
      sandbox: { tenant: 'own', environment: 'sandbox', reads: true, revoked: false },
      otherTenant: { tenant: 'other', environment: 'production', reads: true, revoked: false },
    });
  });
});

describe('a host the checker does not judge', () => {
  const facts = runFactsOf(
    {
      baseUrl: ACME,
      sandboxBaseUrl: 'https://acme.api.localhost:9443/v1',
      credentialVariables: { fullAccess: 'ACME_FULL', otherTenant: 'GLOBEX_FULL' },
    },
    { own, other },
  );

  test('any of the names a request gave being unjudged leaves the request unjudged', () => {
    const exchange = recorded({ headers: [['Host', 'globex.api.localhost'], key('GLOBEX_FULL')] });
    assert.equal(judgeExchange(exchange, facts), undefined);
    // The same request where every host is judged: a key served another tenant's data by two names.
    assert.equal(judgeExchange(exchange, FACTS)?.kind, 'host-names-two-tenants');
  });

  test('facts that name no unjudged host judge every host', () => {
    const { unjudgedHosts, ...judgedAll } = FACTS;
    assert.equal(unjudgedHosts?.size, 0);
    assert.equal(judgeExchange(recorded({ headers: [key('GLOBEX_FULL')] }), judgedAll)?.kind, 'cross-key');
  });
});
