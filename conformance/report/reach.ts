// What the run could reach of the deployment, said in every report: the client address(es) its
// connections came from, its requests by connection kind (protocol, and what the connection
// offered by ALPN), the backends its answers revealed, and what it could not reach. A balancer
// that picks a backend by client address (`balance source`) sends every connection of a run from
// one address to one backend: the run judged that backend, and the report says so.
import type { ConformanceReport, TlsEvidence } from '../../schemas/generated/conformance-report.ts';
import { ALPN_HTTP11_NOTE } from '../requests/raw-client.ts';
import { RULES } from '../catalog/rules.ts';
import type { RunExchange } from './har.ts';

export type Reach = NonNullable<ConformanceReport['reach']>;
type ConnectionKind = Reach['connections'][number]['kind'];
type CheckedOver = NonNullable<Reach['checkedOver']>[number];

const LEVEL_OF = new Map<string, string>(RULES.map((rule) => [rule.id, rule.level]));

/** Answer fields that name the server that answered (a front adds them, or the backend does). */
export const BACKEND_FIELDS = ['x-served-by', 'server', 'via', 'x-backend', 'x-upstream', 'x-served-from'];

/**
 * What no black-box run proves, said in every report and in the signed statement: the suite
 * sends what clients send (their User-Agents, ALPN offers), but a deployment can still tell it
 * apart by a trait it cannot hide.
 */
export const BLACK_BOX_LIMIT =
  "A black-box run cannot prove that the deployment does not tell the suite from its clients by address, timing or another trait and answer them differently; what proves more is checking again from elsewhere: verify --check-live from another machine, a registry's re-runs.";

const KINDS: readonly ConnectionKind[] = [
  'HTTP/1.1, no ALPN offered',
  'HTTP/1.1, ALPN http/1.1 offered',
  'HTTP/2, ALPN h2',
  'plain HTTP',
];

function kindOf({ exchange }: RunExchange): ConnectionKind {
  const { request } = exchange;
  if (request.url.startsWith('http:')) return 'plain HTTP';
  if (request.httpVersion === 'HTTP/2') return 'HTTP/2, ALPN h2';
  return request.note?.includes(ALPN_HTTP11_NOTE)
    ? 'HTTP/1.1, ALPN http/1.1 offered'
    : 'HTTP/1.1, no ALPN offered';
}

export function reachOf(exchanges: readonly RunExchange[], tls: readonly TlsEvidence[]): Reach {
  const counts = new Map<ConnectionKind, number>();
  const values = new Map<string, Set<string>>();
  const kindsOfRule = new Map<string, Set<ConnectionKind>>();
  for (const run of exchanges) {
    const kind = kindOf(run);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    if (LEVEL_OF.has(run.madeBy))
      kindsOfRule.set(run.madeBy, (kindsOfRule.get(run.madeBy) ?? new Set()).add(kind));
    for (const { name, value } of run.exchange.response?.headers ?? []) {
      const field = name.toLowerCase();
      if (!BACKEND_FIELDS.includes(field)) continue;
      const seen = values.get(field) ?? new Set<string>();
      seen.add(value);
      values.set(field, seen);
    }
  }
  const clientAddresses = [
    ...new Set(tls.flatMap(({ clientAddress }) => (clientAddress ? [clientAddress] : []))),
  ];
  const backends = [...values]
    .filter(([, seen]) => seen.size > 1)
    .map(([field, seen]) => ({ field, values: [...seen].sort() }));
  const limits: string[] = [BLACK_BOX_LIMIT];
  if (clientAddresses.length <= 1)
    limits.push(
      `Every connection came from one client address${clientAddresses[0] ? ` (${clientAddresses[0]})` : ''}: a deployment that picks a backend by client address was judged on the backend that address reaches; run from other machines (verify --check-live) to reach others.`,
    );
  if (backends.length === 0)
    limits.push(
      'No answer named a second backend (X-Served-By, Server, Via and the like were the same or absent): whether more than one backend answered is not known.',
    );
  return {
    clientAddresses,
    connections: KINDS.flatMap((kind) => {
      const requests = counts.get(kind) ?? 0;
      return requests > 0 ? [{ kind, requests }] : [];
    }),
    ...(backends.length > 0 ? { backends } : {}),
    ...(kindsOfRule.size > 0 ? { checkedOver: checkedOver(kindsOfRule) } : {}),
    limits,
  };
}

/** The rules grouped by the connection kinds their requests went over, most kinds first. */
function checkedOver(kindsOfRule: ReadonlyMap<string, ReadonlySet<ConnectionKind>>): CheckedOver[] {
  const groups = new Map<string, CheckedOver>();
  for (const rule of RULES) {
    const used = kindsOfRule.get(rule.id);
    if (!used) continue;
    const kinds = KINDS.filter((kind) => used.has(kind));
    const key = kinds.join('|');
    const group = groups.get(key) ?? { kinds, rules: [] };
    group.rules.push(rule.id);
    groups.set(key, group);
  }
  return [...groups.values()].sort(
    (a, b) => b.kinds.length - a.kinds.length || b.rules.length - a.rules.length,
  );
}

/** `[kinds]: N rules (n MUST, n HTTP, n ADVISORY)`: a group of `checkedOver` in one phrase. */
function checkedOverPhrase({ kinds, rules }: CheckedOver): string {
  const levels = ['MUST', 'HTTP', 'ADVISORY'].flatMap((level) => {
    const count = rules.filter((rule) => LEVEL_OF.get(rule) === level).length;
    return count > 0 ? [`${count} ${level}`] : [];
  });
  return `[${kinds.join('; ')}] ${rules.length} rule${rules.length === 1 ? '' : 's'} (${levels.join(', ')})`;
}

/** The reach in a few lines, for the console and Markdown. */
export function reachLines(reach: Reach): string[] {
  return [
    `Client address${reach.clientAddresses.length === 1 ? '' : 'es'}: ${reach.clientAddresses.join(', ') || 'not known'}.`,
    `Requests by connection: ${reach.connections.map(({ kind, requests }) => `${kind} ${requests}`).join('; ') || 'none'}.`,
    ...(reach.checkedOver
      ? [
          `Rules by the connections they were checked over: ${reach.checkedOver.map(checkedOverPhrase).join(' — ')}.`,
        ]
      : []),
    ...(reach.backends ?? []).map(
      ({ field, values }) =>
        `More than one backend answered: ${field} was ${values.map((value) => `"${value}"`).join(', ')}.`,
    ),
    ...reach.limits,
  ];
}
