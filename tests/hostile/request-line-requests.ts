// Fuzzing of the request line over real TLS: methods (known, lowercase, unknown, CONNECT),
// request targets (paths near /v1/customers, random paths, absolute-form naming another tenant,
// `*`, junk), query strings carrying keys in the parameters spec §5 forbids and tenant fields,
// and HTTP versions. A key in the URL never authenticates, and only GET/HEAD /v1/customers with
// a valid Authorization header gets data.
// The generator of the fuzz property of fuzz-request-line.test.ts, also driven by the soak (soak.ts).
import fc from 'fast-check';
import {
  REJECTED,
  hostOf,
  type Expectation,
  type FixtureKnowledge,
  type FuzzRequest,
  type Piece,
  type Text,
} from './fuzz-model.ts';
import { junk, tenantScopes } from './fuzz-pieces.ts';

const CUSTOMERS_PATH = '/v1/customers';
/** Methods Node's parser knows, other than GET and HEAD: answered 405 on /v1/customers. */
const OTHER_KNOWN_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'M-SEARCH'];
/** Query parameters a client might put a key in (decisions table: never authenticates). */
const KEY_PARAMETERS = ['access_token', 'api_key', 'apikey', 'key', 'token', 'Authorization', 'bearer'];
const TENANT_PARAMETERS = ['tenant_id', 'company_id', 'organization_id', 'tenant', 'host'];
const SUPPORTED_VERSIONS = ['HTTP/1.1', 'HTTP/1.0'];
const VERSION_SYNTAX = /^HTTP\/\d\.\d$/;

/** How much of the request line is well-formed, which decides what the answer can be. */
interface Line {
  method: Text;
  /** GET, HEAD, another method Node knows, or anything else. */
  methodKind: 'read' | 'known' | 'other';
  target: Text;
  /** `exact`: /v1/customers; `path`: another well-formed origin-form path; `other`: anything else. */
  targetKind: 'exact' | 'path' | 'other';
  /** Whether the query (and fragment) are of characters every parser accepts. */
  cleanQuery: boolean;
  version: string;
}

export function requestLineRequests(knowledge: FixtureKnowledge): fc.Arbitrary<FuzzRequest> {
  // A tenant host and a key that reads its customers, so that a well-formed request gets data.
  const readers = knowledge.keyIds.filter((id) => {
    const key = knowledge.key(id);
    return knowledge.bearerOutcome(id, key.tenant, key.environment).kind === 'data';
  });
  return fc
    .record({
      keyId: fc.constantFrom(...readers),
      withHeader: fc.constantFrom(true, true, false),
      line: requestLine(knowledge),
    })
    .map(({ keyId, withHeader, line }): FuzzRequest => {
      const key = knowledge.key(keyId);
      const host = hostOf(key.tenant, key.environment);
      return {
        servername: host,
        method: line.method,
        target: line.target,
        version: [line.version],
        headers: [
          [['Host'], [host]],
          ...(withHeader ? [[['Authorization'], ['Bearer ', { key: keyId }]] as const] : []),
        ],
        expect: expectation(line, withHeader, key),
      };
    });
}

function expectation(
  line: Line,
  withHeader: boolean,
  scope: { tenant: string; environment: 'production' | 'sandbox' },
): Expectation {
  const wellFormed = withHeader && line.methodKind === 'read' && line.targetKind === 'exact';
  // Node's parser takes any `HTTP/d.d` and the server answers it as HTTP/1.1: the key is
  // still checked, so data may come back, but only for a request that would get it anyway.
  const mayParse =
    line.methodKind !== 'other' && line.targetKind !== 'other' && VERSION_SYNTAX.test(line.version);
  if (!mayParse) return REJECTED.any;
  if (!line.cleanQuery || !SUPPORTED_VERSIONS.includes(line.version)) {
    return wellFormed ? { kind: 'data-or-rejected', ...scope } : REJECTED.any;
  }
  if (!withHeader) return REJECTED.missing;
  if (line.targetKind === 'path') return REJECTED.notFound;
  if (line.methodKind === 'known') return REJECTED.methodNotAllowed;
  return { kind: 'data', ...scope };
}

function requestLine(knowledge: FixtureKnowledge): fc.Arbitrary<Line> {
  const method = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .constantFrom('GET', 'HEAD')
        .map((name) => ({ method: [name], methodKind: 'read' as const })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...OTHER_KNOWN_METHODS)
        .map((name) => ({ method: [name], methodKind: 'known' as const })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.constantFrom('get', 'Get', 'FOO', 'CONNECT', 'GET /', ''), ...junkTexts(12))
        .map((name) => ({ method: typeof name === 'string' ? [name] : name, methodKind: 'other' as const })),
    },
  );
  const version = fc.oneof(
    { weight: 8, arbitrary: fc.constant('HTTP/1.1') },
    { weight: 1, arbitrary: fc.constant('HTTP/1.0') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'HTTP/1.2',
        'HTTP/2.0',
        'HTTP/2',
        'HTTP/0.9',
        'HTTP/3.0',
        'http/1.1',
        'HTTP/11',
        'HTTP/1.1 x',
        'HTTPS/1.1',
        '',
      ),
    },
  );
  return fc
    .record({ method, path: path(knowledge), query: query(knowledge), version })
    .map(({ method: m, path: p, query: q, version: v }): Line => ({
      ...m,
      target: [...p.text, ...q.text],
      targetKind: p.kind,
      cleanQuery: q.clean,
      version: v,
    }));
}

function junkTexts(maxLength: number): fc.Arbitrary<Text>[] {
  return [junk(maxLength)];
}

function path(knowledge: FixtureKnowledge): fc.Arbitrary<{ text: Text; kind: Line['targetKind'] }> {
  const segment = fc.oneof(
    fc.constantFrom(
      'v1',
      'customers',
      'V1',
      'Customers',
      'v2',
      '..',
      '.',
      '',
      '%2e%2e',
      '%2F',
      'customers;x',
      '%00',
      'v1%2Fcustomers',
    ),
    fc.webSegment(),
  );
  // Segments near /v1/customers: the path is exact only when they spell it.
  const nearby = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => {
    const text = `/${segments.join('/')}`;
    return { text: [text], kind: text === CUSTOMERS_PATH ? ('exact' as const) : ('path' as const) };
  });
  // A key pasted into the path must not come back in the answer.
  const keyInPath = fc.constantFrom(...knowledge.keyIds).map((keyId) => ({
    text: ['/v1/customers/', { key: keyId }] as Text,
    kind: 'path' as const,
  }));
  const absolute = tenantScopes(knowledge).map((scope) => ({
    text: [`https://${hostOf(scope.tenant, scope.environment)}${CUSTOMERS_PATH}`],
    kind: 'path' as const,
  }));
  const other = fc.oneof(
    fc
      .constantFrom('*', 'v1/customers', '//v1/customers', `${CUSTOMERS_PATH} ${CUSTOMERS_PATH}`)
      .map((text) => [text]),
    junk(40),
  );
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ text: [CUSTOMERS_PATH], kind: 'exact' as const }) },
    { weight: 3, arbitrary: nearby },
    {
      weight: 1,
      arbitrary: fc.webPath().map((text) => ({ text: [`/${text.replace(/^\//, '')}`], kind: kindOf(text) })),
    },
    { weight: 1, arbitrary: keyInPath },
    { weight: 1, arbitrary: absolute },
    { weight: 1, arbitrary: other.map((text) => ({ text, kind: 'other' as const })) },
  );
}

function kindOf(webPath: string): Line['targetKind'] {
  return `/${webPath.replace(/^\//, '')}` === CUSTOMERS_PATH ? 'exact' : 'path';
}

/** A query of parameters carrying keys and tenant names, and sometimes a fragment or junk. */
function query(knowledge: FixtureKnowledge): fc.Arbitrary<{ text: Text; clean: boolean }> {
  const value = fc.oneof(
    fc.constantFrom(...knowledge.keyIds).map((keyId): Text => [{ key: keyId }]),
    fc.constantFrom(...knowledge.keyIds).map((keyId): Text => ['Bearer%20', { key: keyId }]),
    fc.constantFrom(...knowledge.tenantIds, 'nosuch').map((tenant): Text => [tenant]),
    fc.webSegment().map((text): Text => [text]),
  );
  const pair = fc
    .tuple(fc.oneof(fc.constantFrom(...KEY_PARAMETERS, ...TENANT_PARAMETERS), fc.webSegment()), value)
    .map(([name, text]): Text => [`${name}=`, ...text]);
  const parameters = fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs): Text => {
    const pieces: Piece[] = ['?'];
    pairs.forEach((one, index) => pieces.push(...(index === 0 ? [] : ['&']), ...one));
    return pieces;
  });
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ text: [], clean: true }) },
    { weight: 4, arbitrary: parameters.map((text) => ({ text, clean: true })) },
    { weight: 1, arbitrary: fc.webQueryParameters().map((text) => ({ text: [`?${text}`], clean: true })) },
    { weight: 1, arbitrary: fc.webFragments().map((text) => ({ text: [`#${text}`], clean: false })) },
    { weight: 1, arbitrary: junk(40).map((text) => ({ text: ['?', ...text], clean: false })) },
  );
}
