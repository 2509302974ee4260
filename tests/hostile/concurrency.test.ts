// Many clients of different tenants and environments at once: dozens of connections open
// together, each pipelining requests with its own tenant's keys, other tenants' keys, the other
// environment's keys or none. Every answer must be exactly its own host's data or a rejection:
// no answer ever carries another tenant's or environment's customers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { hostOf, requestBytes, type FixtureKnowledge, type FuzzRequest } from './fuzz-model.ts';
import { environments, type TenantScope } from './fuzz-pieces.ts';
import { problemsWith } from './response-invariants.ts';
import { RawTlsConnection } from './raw-tls-connection.ts';
import { runProperty, useFuzzTarget } from './fuzz-runner.ts';

const CONNECTIONS_PER_ROUND = 48;
const REQUESTS_PER_CONNECTION = 10;
const ROUNDS = 3;
const EXCHANGE_TIMEOUT_MS = 10_000;

const target = useFuzzTarget();

test(`${ROUNDS} rounds of ${CONNECTIONS_PER_ROUND} concurrent connections × ${REQUESTS_PER_CONNECTION} pipelined requests: no answer carries another scope's data`, async () => {
  const { knowledge } = target();
  const plans = fc.array(connectionPlan(knowledge), {
    minLength: CONNECTIONS_PER_ROUND,
    maxLength: CONNECTIONS_PER_ROUND,
  });
  let served = 0;
  const property = fc.asyncProperty(plans, async (connections) => {
    const results = await Promise.all(connections.map((plan) => runConnection(plan)));
    const problems = results.flatMap((result) => result.problems);
    served += results.reduce((sum, result) => sum + result.data, 0);
    if (problems.length > 0) throw new Error(problems.slice(0, 20).join('\n'));
  });
  await runProperty(property, { runs: ROUNDS, shrink: false });
  // The rounds would prove nothing if no request had been allowed data.
  assert.ok(served > ROUNDS * CONNECTIONS_PER_ROUND, `only ${served} answers carried data`);
});

interface ConnectionPlan {
  scope: TenantScope;
  /** The key of each request, by id; null sends no Authorization header. */
  keys: (string | null)[];
}

function connectionPlan(knowledge: FixtureKnowledge): fc.Arbitrary<ConnectionPlan> {
  const scope = fc.record({ tenant: fc.constantFrom(...knowledge.tenantIds), environment: environments });
  return scope.chain((chosen) => {
    const own = knowledge.keyIds.filter((id) => {
      const key = knowledge.key(id);
      return key.tenant === chosen.tenant && key.environment === chosen.environment;
    });
    const anyKey = fc.constantFrom(...knowledge.keyIds);
    const key =
      own.length === 0 ? anyKey : fc.oneof(fc.constantFrom(...own), fc.constantFrom(...own), anyKey);
    return fc.record({
      scope: fc.constant(chosen),
      keys: fc.array(fc.option(key, { freq: 8 }), {
        minLength: REQUESTS_PER_CONNECTION,
        maxLength: REQUESTS_PER_CONNECTION,
      }),
    });
  });
}

/** Opens one connection for the plan's host, pipelines all its requests, checks every answer. */
async function runConnection(plan: ConnectionPlan): Promise<{ problems: string[]; data: number }> {
  const { knowledge } = target();
  const host = hostOf(plan.scope.tenant, plan.scope.environment);
  const requests = plan.keys.map((keyId): FuzzRequest => ({
    servername: host,
    method: ['GET'],
    target: ['/v1/customers'],
    version: ['HTTP/1.1'],
    headers: [
      [['Host'], [host]],
      ...(keyId === null ? [] : [[['Authorization'], ['Bearer ', { key: keyId }]] as const]),
    ],
    expect:
      keyId === null
        ? { kind: 'rejected', status: 401, codes: ['missing_authorization_header'] }
        : knowledge.bearerOutcome(keyId, plan.scope.tenant, plan.scope.environment),
  }));
  const connection = await RawTlsConnection.open({
    port: target().server.server.httpsPort,
    ca: target().server.ca,
    servername: host,
  });
  try {
    connection.send(Buffer.concat(requests.map((request) => requestBytes(request, knowledge))));
    const problems: string[] = [];
    let data = 0;
    for (const [index, request] of requests.entries()) {
      const outcome = await connection.readResponse(false, EXCHANGE_TIMEOUT_MS);
      const found = problemsWith(outcome, request.expect, knowledge, false);
      const key = plan.keys[index] ?? 'no key';
      problems.push(...found.map((problem) => `${host}, request ${index} (${key}): ${problem}`));
      if (outcome.kind === 'response' && outcome.response.status === 200) data += 1;
      if (outcome.kind !== 'response') break;
    }
    return { problems, data };
  } finally {
    connection.close();
  }
}
