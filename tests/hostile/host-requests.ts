// Fuzzing of the addressing of a request over real TLS: the TLS SNI name against the `Host`
// header (spelled in every case, with ports and trailing dots, another tenant's host, hosts that
// match no tenant pattern, junk, none or two), with a key of some tenant. Data is served only
// when SNI and Host name the same tenant host and the key belongs to it (RFC 9110 §7.4).
// The generator of the fuzz property of fuzz-host.test.ts, also driven by the soak (soak.ts).
import fc from 'fast-check';
import {
  DOMAIN,
  REJECTED,
  hostOf,
  type Expectation,
  type FixtureKnowledge,
  type FuzzRequest,
  type Text,
} from './fuzz-model.ts';
import { junk, tenantConfusionHeaders, tenantScopes } from './fuzz-pieces.ts';

/** Host names that no tenant API pattern matches, or that only look like a tenant API's. */
const NOT_TENANT_HOSTS = [
  DOMAIN,
  `api.${DOMAIN}`,
  `.api.${DOMAIN}`,
  `sandbox-.api.${DOMAIN}`,
  `acme.api.${DOMAIN}.evil.test`,
  `acme.api.${DOMAIN}@evil.test`,
  `acme..api.${DOMAIN}`,
  `acme_corp.api.${DOMAIN}`,
  `-acme.api.${DOMAIN}`,
  `acme.other.${DOMAIN}`,
  `${'a'.repeat(64)}.api.${DOMAIN}`,
  // The panel and admin hosts of the same listener: answered only on a connection opened for them.
  `acme.${DOMAIN}`,
  `sandbox-globex.${DOMAIN}`,
  `admin.${DOMAIN}`,
  'evil.test',
  '127.0.0.1',
  '[::1]',
  '[::1]:443',
];

/** SNI names a client may send; `undefined` sends none (a client addressing an IP). */
const OTHER_SNI = [undefined, DOMAIN, 'evil.test', `api.${DOMAIN}`];

interface HostLine {
  /** `tenant`: a tenant API host, decorated; `other`: a host of no tenant; `junk`: anything. */
  kind: 'tenant' | 'other' | 'junk';
  value: Text;
  /** For `tenant`: the host name a server must read from the value. */
  hostname?: string;
}

export function hostRequests(knowledge: FixtureKnowledge, port: number): fc.Arbitrary<FuzzRequest> {
  const tenantHost = tenantScopes(knowledge).map(({ tenant, environment }) => ({
    name: hostOf(tenant, environment),
    isTenantHost: true,
    keys: knowledge.keyIds.filter((id) => {
      const key = knowledge.key(id);
      return key.tenant === tenant && key.environment === environment;
    }),
  }));
  const otherHost = fc.constantFrom(...OTHER_SNI).map((name) => ({ name, isTenantHost: false, keys: [] }));
  const line = hostLine(knowledge, port);
  return fc
    .record({
      sni: fc.oneof({ weight: 5, arbitrary: tenantHost }, { weight: 1, arbitrary: otherHost }),
      // Most cases name the SNI host in Host, decorated, so that data is a common outcome.
      sameAsSni: fc.constantFrom(true, true, true, false),
      decoration: decoration(port),
      lines: fc.oneof(
        { weight: 1, arbitrary: fc.constant<HostLine[]>([]) },
        { weight: 6, arbitrary: line.map((one) => [one]) },
        { weight: 1, arbitrary: fc.array(line, { minLength: 2, maxLength: 2 }) },
      ),
      keyId: fc.option(fc.constantFrom(...knowledge.keyIds), { freq: 6 }),
      // Most keys are one of the SNI host's own, so that data is a common outcome.
      ownKey: fc.option(fc.nat(), { freq: 3 }),
      confusion: fc.option(tenantConfusionHeaders(knowledge), { freq: 3 }),
    })
    .map(({ sni, sameAsSni, decoration: decorate, lines, keyId: anyKey, ownKey, confusion }): FuzzRequest => {
      const servername = sni.name;
      const keyId = (ownKey === null ? undefined : sni.keys[ownKey % sni.keys.length]) ?? anyKey;
      const hostLines: HostLine[] =
        sameAsSni && servername !== undefined && lines.length === 1
          ? [
              sni.isTenantHost
                ? { kind: 'tenant', value: [decorate(servername)], hostname: servername }
                : { kind: 'other', value: [decorate(servername)] },
            ]
          : lines;
      return {
        servername,
        method: ['GET'],
        target: ['/v1/customers'],
        version: ['HTTP/1.1'],
        headers: [
          ...hostLines.map((one) => [['Host'], one.value] as const),
          ...(confusion ?? []),
          ...(keyId === null ? [] : [[['Authorization'], ['Bearer ', { key: keyId }]] as const]),
        ],
        expect: expectation(servername, hostLines, keyId, knowledge, port),
      };
    });
}

function expectation(
  servername: string | undefined,
  lines: readonly HostLine[],
  keyId: string | null,
  knowledge: FixtureKnowledge,
  listenerPort: number,
): Expectation {
  if (lines.some((one) => one.kind === 'junk')) return REJECTED.any;
  const [only] = lines;
  if (only === undefined || lines.length > 1) return REJECTED.badRequest;
  // A port named in Host must be the listener's (none is fine): the request is for another server.
  const namedPort = /:(\d+)$/.exec(typeof only.value[0] === 'string' ? only.value[0] : '')?.[1];
  if (namedPort !== undefined && Number(namedPort) !== listenerPort) return REJECTED.misdirected;
  if (only.kind !== 'tenant' || only.hostname !== servername?.toLowerCase() || servername === undefined) {
    return REJECTED.misdirected;
  }
  if (keyId === null) return REJECTED.missing;
  const label = servername.slice(0, -`.api.${DOMAIN}`.length);
  const sandbox = label.startsWith('sandbox-');
  return knowledge.bearerOutcome(
    keyId,
    sandbox ? label.slice('sandbox-'.length) : label,
    sandbox ? 'sandbox' : 'production',
  );
}

/** Spellings of the same host name: any letter case, a port, the root's trailing dot. */
function decoration(port: number): fc.Arbitrary<(host: string) => string> {
  return fc
    .record({
      upper: fc.constantFrom('none', 'all', 'first'),
      dot: fc.boolean(),
      suffix: fc.constantFrom('', `:${port}`, ':443', ':'),
    })
    .map(({ upper, dot, suffix }) => (host: string) => {
      const cased =
        upper === 'all'
          ? host.toUpperCase()
          : upper === 'first'
            ? host[0]?.toUpperCase() + host.slice(1)
            : host;
      return `${cased}${dot ? '.' : ''}${suffix}`;
    });
}

function hostLine(knowledge: FixtureKnowledge, port: number): fc.Arbitrary<HostLine> {
  const tenant = fc.tuple(tenantScopes(knowledge), decoration(port)).map(([scope, decorate]): HostLine => {
    const hostname = hostOf(scope.tenant, scope.environment);
    return { kind: 'tenant', value: [decorate(hostname)], hostname };
  });
  const other = fc
    .tuple(fc.constantFrom(...NOT_TENANT_HOSTS), decoration(port))
    .map(([host, decorate]): HostLine => ({ kind: 'other', value: [decorate(host)] }));
  const garbage = junk(80).map((value): HostLine => ({ kind: 'junk', value }));
  return fc.oneof(
    { weight: 3, arbitrary: tenant },
    { weight: 2, arbitrary: other },
    { weight: 2, arbitrary: garbage },
  );
}
