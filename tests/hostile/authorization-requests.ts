// Fuzzing of the Authorization header over real TLS: schemes and their case, spacing, quotes,
// tabs, control and non-ASCII bytes, mutated, foreign and revoked keys, huge values and
// duplicates, mixed with headers that try to name another tenant. Each case must get exactly the
// answer the decisions table gives, and never data without a valid key of that very host.
// The generator of the fuzz property of fuzz-authorization.test.ts, also driven by the soak (soak.ts).
import fc from 'fast-check';
import {
  REJECTED,
  hostOf,
  type Expectation,
  type FixtureKnowledge,
  type FuzzRequest,
  type KeyMutation,
  type Text,
} from './fuzz-model.ts';
import { huge, junk, tenantConfusionHeaders, tenantScopes, type TenantScope } from './fuzz-pieces.ts';

/** One Authorization field line, and which answer its form calls for. */
interface AuthorizationLine {
  /** `bearer`: well-formed with this key; `invalid`/`missing`/`unauthenticated`: that rejection. */
  form: 'bearer' | 'invalid' | 'missing' | 'unauthenticated' | 'any';
  keyId?: string;
  name: string;
  value: Text;
}

export function authorizationRequests(knowledge: FixtureKnowledge): fc.Arbitrary<FuzzRequest> {
  const line = authorizationLine(knowledge);
  return fc
    .record({
      lines: fc.oneof(
        { weight: 1, arbitrary: fc.constant<AuthorizationLine[]>([]) },
        { weight: 8, arbitrary: line.map((one) => [one]) },
        { weight: 2, arbitrary: fc.array(line, { minLength: 2, maxLength: 3 }) },
      ),
      // Half the cases go to the host of the key they carry, so that valid keys are common.
      ownHost: fc.boolean(),
      otherHost: tenantScopes(knowledge),
      method: fc.constantFrom('GET', 'GET', 'HEAD'),
      confusion: fc.option(tenantConfusionHeaders(knowledge), { freq: 3 }),
      accept: fc.boolean(),
    })
    .map(({ lines, ownHost, otherHost, method, confusion, accept }): FuzzRequest => {
      const keyId = lines.find((one) => one.keyId !== undefined)?.keyId;
      const scope: TenantScope = ownHost && keyId ? knowledge.key(keyId) : otherHost;
      const host = hostOf(scope.tenant, scope.environment);
      return {
        servername: host,
        method: [method],
        target: ['/v1/customers'],
        version: ['HTTP/1.1'],
        headers: [
          [['Host'], [host]],
          ...(accept ? [[['Accept'], ['application/json']] as const] : []),
          ...(confusion ?? []),
          ...lines.map((one) => [[one.name], one.value] as const),
        ],
        expect: expectation(lines, scope, knowledge),
      };
    });
}

function expectation(
  lines: readonly AuthorizationLine[],
  scope: TenantScope,
  knowledge: FixtureKnowledge,
): Expectation {
  // Junk may hold CR/LF, which splits or ends the header block: only "no data" is certain.
  if (lines.some((one) => one.form === 'any')) return REJECTED.any;
  const authorization = lines.filter((one) => one.name.toLowerCase() === 'authorization');
  if (authorization.length === 0) return REJECTED.missing;
  if (authorization.length > 1) return REJECTED.invalid;
  const [only] = authorization;
  if (only === undefined) return REJECTED.any;
  if (only.form !== 'bearer') return REJECTED[only.form];
  if (only.keyId === undefined) return REJECTED.any;
  return knowledge.bearerOutcome(only.keyId, scope.tenant, scope.environment);
}

function authorizationLine(knowledge: FixtureKnowledge): fc.Arbitrary<AuthorizationLine> {
  const keyId = fc.constantFrom(...knowledge.keyIds);
  const key = (id: string, mutation?: KeyMutation): Text[number] =>
    mutation ? { key: id, mutation } : { key: id };
  const name = fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION');
  const whitespace = fc.constantFrom('', ' ', '\t', ' \t ');

  // RFC 9110 §11.1: the scheme is case-insensitive; OWS around a field value is not part of it.
  const wellFormed = fc
    .record({
      keyId,
      name,
      scheme: fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR'),
      spaces: fc.integer({ min: 1, max: 3 }),
      before: whitespace,
      afterwards: whitespace,
    })
    .map(
      ({ keyId: id, name: header, scheme, spaces, before: lead, afterwards: trail }): AuthorizationLine => ({
        form: 'bearer',
        keyId: id,
        name: header,
        value: [`${lead}${scheme}${' '.repeat(spaces)}`, key(id), trail],
      }),
    );

  const mutation: fc.Arbitrary<KeyMutation> = fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), by: fc.integer({ min: 1, max: 45 }) }),
    fc.record({
      kind: fc.constant('extend' as const),
      with: fc.constantFrom('x', 'A', '0', '=', '==', '-._~+/'),
    }),
    fc.record({ kind: fc.constant('flip-case' as const), at: fc.nat(64) }),
    fc.record({ kind: fc.constant('replace' as const), at: fc.nat(64) }),
  );
  const mutated = fc
    .record({ keyId, name, mutation })
    .map(({ keyId: id, name: header, mutation: change }): AuthorizationLine => ({
      form: 'invalid',
      keyId: id,
      name: header,
      value: ['Bearer ', key(id, change)],
    }));

  // Malformed Bearer credentials: decisions table, "key in quotes" and "tab, internal space,
  // characters outside token68, extra params" → invalid_api_key.
  const malformed = fc
    .record({
      keyId,
      name,
      shape: fc.constantFrom<(k: Text[number]) => Text>(
        (k) => ['Bearer "', k, '"'],
        (k) => ["Bearer '", k, "'"],
        (k) => ['Bearer\t', k],
        (k) => ['Bearer ', k, ' ', k],
        (k) => ['Bearer ', k, ', realm="api"'],
        (k) => ['Bearer ', k, ','],
        (k) => ['Bearer ', k, 'é'],
        (k) => ['Bearer ', k, '\u00a0'],
        (k) => ['Bearer :', k],
        (k) => ['Bearer ', k, ';'],
        () => ['Bearer'],
        () => ['Bearer    '],
      ),
    })
    .map(({ keyId: id, name: header, shape }): AuthorizationLine => ({
      form: 'invalid',
      keyId: id,
      name: header,
      value: shape(key(id)),
    }));

  // Other schemes and bare keys carry no Bearer credential; a value in quotes has no scheme.
  const notBearer = fc
    .record({
      keyId,
      name,
      shape: fc.constantFrom<[AuthorizationLine['form'], (k: Text[number]) => Text]>(
        ['missing', (k) => [k]],
        ['missing', (k) => ['Basic ', k]],
        ['missing', () => ['Basic dXNlcjpwYXNzd29yZA==']],
        ['missing', (k) => ['Token ', k]],
        ['missing', (k) => ['ApiKey ', k]],
        ['missing', (k) => ['Bearer-', k]],
        ['missing', (k) => ['Bearer', k]],
        ['missing', () => ['Digest username="admin", realm="api"']],
        ['missing', () => ['']],
        ['missing', () => ['   ']],
        ['unauthenticated', (k) => ['"Bearer ', k, '"']],
      ),
    })
    .map(({ keyId: id, name: header, shape: [form, shape] }): AuthorizationLine => ({
      form,
      name: header,
      value: shape(key(id)),
    }));

  // The key in a header other than Authorization never authenticates.
  const elsewhere = fc
    .record({ keyId, name: fc.constantFrom('X-Api-Key', 'Api-Key', 'Proxy-Authorization', 'Authorisation') })
    .map(({ keyId: id, name: header }): AuthorizationLine => ({
      form: 'missing',
      keyId: id,
      name: header,
      value: header.endsWith('Authorization') ? ['Bearer ', key(id)] : [key(id)],
    }));

  const hostile = fc
    .record({ name, prefix: fc.constantFrom('', 'Bearer ', 'bearer  '), value: fc.oneof(junk(64), huge) })
    .map(({ name: header, prefix, value }): AuthorizationLine => ({
      form: 'any',
      name: header,
      value: [prefix, ...value],
    }));

  // A control byte or a raw non-UTF-8 byte after a valid key. Not a tab: a tab at the end of the
  // line is optional whitespace around the field value (RFC 9110 §5.5), not part of it, so
  // "Bearer KEY<tab>" is a well-formed credential (covered by wellFormed's trailing whitespace).
  const trailingByte = fc
    .record({
      keyId,
      name,
      byte: fc.oneof(
        fc.integer({ min: 0, max: 0x1f }).filter((byte) => byte !== 0x09),
        fc.integer({ min: 0x7f, max: 0xff }),
      ),
    })
    .map(({ keyId: id, name: header, byte }): AuthorizationLine => ({
      form: 'any',
      name: header,
      value: ['Bearer ', key(id), { bytes: [byte] }],
    }));

  return fc.oneof(
    { weight: 5, arbitrary: wellFormed },
    { weight: 2, arbitrary: mutated },
    { weight: 2, arbitrary: malformed },
    { weight: 2, arbitrary: notBearer },
    { weight: 1, arbitrary: elsewhere },
    { weight: 2, arbitrary: hostile },
    { weight: 1, arbitrary: trailingByte },
  );
}
