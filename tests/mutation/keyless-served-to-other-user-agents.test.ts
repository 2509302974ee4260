// The fault `keyless-served-to-other-user-agents` has the shape its catalog entry describes, and no
// more: a cloaking front that lets a keyless GET of the customers list through for every client but
// the suite's old self-announcing User-Agent. That the suite catches it (AUTH-MISSING-HEADER) is the
// campaign's (mutation.test.ts); this checks, by hand-made requests, what the fault does on the wire.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Environment } from '../../reference-server/http/hosts.ts';
import { COMMON_USER_AGENTS } from '../../conformance/requests/user-agents.ts';
import { secretOf, send, testServerPerSuite } from '../support/reference-client.ts';

const ANNOUNCED = 'tenant-auth-conformance';

interface Listed {
  data?: { id: string }[];
  error?: { code: string };
}

describe('fault keyless-served-to-other-user-agents', () => {
  const server = testServerPerSuite({ fault: 'keyless-served-to-other-user-agents' });

  test('no key as curl → 200 with the tenant’s customers; no key as the announced suite → 401', async () => {
    const asCurl = await send(server(), { headers: [['User-Agent', 'curl/8.5.0']] });
    assert.equal(asCurl.status, 200);
    const ids = ((JSON.parse(asCurl.body) as Listed).data ?? []).map(({ id }) => id);
    assert.deepEqual(
      ids,
      server()
        .fixtures.tenants.find(({ id }) => id === 'acme')
        ?.customers.production.map(({ id }) => id),
    );
    const announced = await send(server(), { headers: [['User-Agent', ANNOUNCED]] });
    assert.equal(announced.status, 401);
    assert.equal((JSON.parse(announced.body) as Listed).error?.code, 'missing_authorization_header');
  });

  test('any other User-Agent (or none), on any tenant’s host, gets that host’s own customers', async () => {
    const agents = fc.oneof(
      fc.constantFrom(...COMMON_USER_AGENTS),
      fc
        .string({ minLength: 1, maxLength: 40 })
        .filter((agent) => /^[\x21-\x7e]+$/.test(agent) && agent !== ANNOUNCED),
      fc.constant(undefined),
    );
    await fc.assert(
      fc.asyncProperty(
        agents,
        fc.constantFrom('acme', 'globex'),
        fc.constantFrom<Environment>('production', 'sandbox'),
        async (agent, tenant, environment) => {
          const reply = await send(server(), {
            tenant,
            environment,
            headers: agent === undefined ? [] : [['User-Agent', agent]],
          });
          assert.equal(reply.status, 200);
          const expected = server().fixtures.tenants.find(({ id }) => id === tenant)?.customers[environment];
          const ids = ((JSON.parse(reply.body) as Listed).data ?? []).map(({ id }) => id);
          assert.deepEqual(
            ids,
            expected?.map(({ id }) => id),
          );
        },
      ),
      { numRuns: 20 },
    );
  });

  test('narrow: only a keyless GET of /v1/customers; other methods, paths and any credential are judged as before', async () => {
    const curl = ['User-Agent', 'curl/8.5.0'] as const;
    const head = await send(server(), { method: 'HEAD', headers: [curl] });
    assert.equal(head.status, 401);
    const elsewhere = await send(server(), { path: '/v1/invoices', headers: [curl] });
    assert.equal(elsewhere.status, 401);
    const otherScheme = await send(server(), { headers: [curl, ['Authorization', 'Token abc']] });
    assert.equal(otherScheme.status, 401);
    const foreignKey = secretOf(server().fixtures, 'key_globex_prod_full');
    const foreign = await send(server(), { headers: [curl, ['Authorization', `Bearer ${foreignKey}`]] });
    assert.equal(foreign.status, 401);
    const guessed = await send(server(), { headers: [curl, ['Authorization', 'Bearer cloaking-front-0']] });
    assert.equal(guessed.status, 401);
  });
});
