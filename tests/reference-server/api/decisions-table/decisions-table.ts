// What the decisions table's tests share (the files beside this one, one per step of a request's
// path): a reference server per file, and the requests and assertions of its rows. Each negative
// case sits beside a positive control, so that a test cannot pass because nothing works; a
// rejected request gets no customer data of any tenant.
import assert from 'node:assert/strict';
import {
  assertCustomersReply,
  assertErrorReply,
  customerMarkers,
} from '../../../support/reference-assertions.ts';
import {
  secretOf,
  send,
  testServerPerSuite,
  type Reply,
  type SendOptions,
  type TestServer,
} from '../../../support/reference-client.ts';
import type { Environment } from '../../../../reference-server/http/hosts.ts';

/** Well-formed keys (right prefix, 32 base62 characters) that no tenant has. */
export const UNKNOWN_PROD_KEY = `mbk_prod_${'Q7'.repeat(16)}`;
export const UNKNOWN_DEV_KEY = `mbk_dev_${'Q7'.repeat(16)}`;
export const QUERY_KEY_NAMES = ['access_token', 'api_key', 'apikey', 'key', 'token'] as const;

export interface DecisionsServer {
  /** The server of the describe that called useDecisionsServer (started by its `before`). */
  readonly target: TestServer;
  key: (id: string) => string;
  auth: (value: string) => Array<[string, string]>;
  bearer: (keyId: string) => Array<[string, string]>;
  get: (options: SendOptions) => Promise<Reply>;
  customerIds: (tenant: string, environment: Environment) => string[];
  /** A 200 with exactly this tenant's customers of this environment, nothing else. */
  assertServes: (reply: Reply, tenant: string, environment: Environment) => void;
  rejected: (reply: Reply, code: string, challenge: 'realm' | 'invalid_token' | 'none') => void;
}

/** A reference server started before the tests of the calling describe and closed after them. */
export function useDecisionsServer(): DecisionsServer {
  const server = testServerPerSuite();
  const key = (id: string): string => secretOf(server().fixtures, id);
  const auth = (value: string): Array<[string, string]> => [['Authorization', value]];
  const customerIds = (tenant: string, environment: Environment): string[] => {
    const found = server().fixtures.tenants.find((candidate) => candidate.id === tenant);
    assert.ok(found, tenant);
    return found.customers[environment].map((customer) => customer.id);
  };
  return {
    get target() {
      return server();
    },
    key,
    auth,
    bearer: (keyId) => auth(`Bearer ${key(keyId)}`),
    get: (options) => send(server(), options),
    customerIds,
    assertServes: (reply, tenant, environment) => {
      const body = assertCustomersReply(reply);
      const expected = customerIds(tenant, environment);
      assert.ok(expected.length > 0, `the fixtures give ${tenant} ${environment} customers`);
      assert.deepEqual(
        body.data.map((customer) => customer.id),
        expected,
      );
      const own = new Set(body.data.flatMap((customer) => [customer.id, customer.name, customer.email]));
      for (const marker of customerMarkers(server().fixtures)) {
        if (!own.has(marker)) assert.ok(!reply.body.includes(marker), `foreign customer data: ${marker}`);
      }
    },
    rejected: (reply, code, challenge) => {
      const status = code === 'misdirected_request' ? 421 : 401;
      assertErrorReply(reply, { status, code, challenge }, server().fixtures);
    },
  };
}
