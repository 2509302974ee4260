// Clients judged by what they do next when the API says no — a refused key, a key revoked while
// they run, a 429 with Retry-After, a POST whose connection was reset — each a few lines, run
// against the in-process mock with the behaviour that puts them to the test. Each faulty one
// must be caught by exactly its rules; each correct one by none (next-step-rules.test.ts).
import type { ClientRuleId } from '../../../conformance/catalog/client-rules.ts';
import type { ReferenceMock } from '../../../library/mock.ts';
import {
  connectionReset,
  errorAnswer,
  rateLimited,
  revokeKeyAfter,
  type Behaviour,
} from '../../../library/behaviours.ts';

export interface NextStepClient {
  userAgent: string;
  /** The rules the report must flag for this client, and no other (none: a correct client). */
  caughtBy: readonly ClientRuleId[];
  /** The key it uses: a fresh Read Only key of acme, minted for it. */
  behaviours(keyId: string): Behaviour[];
  run(mock: ReferenceMock, secret: string): Promise<void>;
}

/** The bound of every client's loop: enough to show a loop, never endless. */
const MAX_ATTEMPTS = 5;

async function call(
  mock: ReferenceMock,
  userAgent: string,
  secret: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<number> {
  try {
    const response = await mock.fetch(`${mock.baseUrl('acme')}/customers`, {
      method: init.method ?? 'GET',
      headers: {
        Authorization: `Bearer ${secret}`,
        Accept: 'application/json',
        'User-Agent': userAgent,
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0; // no answer: the connection was cut
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const refusedKey = (keyId: string): Behaviour[] => [
  errorAnswer({
    status: 401,
    code: 'invalid_api_key',
    keyId,
    breaksRule: 'a valid key is refused, to see that the client stops',
  }),
];
const POST_JSON = {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: '{"name":"Jane"}',
};

export const NEXT_STEP_CLIENTS: readonly NextStepClient[] = [
  {
    userAgent: 'faulty-retries-refused-key',
    caughtBy: ['CLIENT-STOPS-ON-INVALID-KEY'],
    behaviours: refusedKey,
    run: async (mock, secret) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++)
        await call(mock, 'faulty-retries-refused-key', secret);
    },
  },
  {
    userAgent: 'correct-stops-on-refused-key',
    caughtBy: [],
    behaviours: refusedKey,
    run: async (mock, secret) => {
      await call(mock, 'correct-stops-on-refused-key', secret);
    },
  },
  {
    userAgent: 'faulty-ignores-retry-after',
    caughtBy: ['CLIENT-HONOURS-RETRY-AFTER'],
    behaviours: (keyId) => [rateLimited({ retryAfter: 1, times: 1, keyId })],
    run: async (mock, secret) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++)
        if ((await call(mock, 'faulty-ignores-retry-after', secret)) !== 429) return;
    },
  },
  {
    userAgent: 'correct-waits-retry-after',
    caughtBy: [],
    behaviours: (keyId) => [rateLimited({ retryAfter: 1, times: 1, keyId })],
    run: async (mock, secret) => {
      if ((await call(mock, 'correct-waits-retry-after', secret)) !== 429)
        throw new Error('no 429 to wait on');
      await wait(1000);
      await call(mock, 'correct-waits-retry-after', secret);
    },
  },
  {
    userAgent: 'faulty-retries-post-after-reset',
    caughtBy: ['CLIENT-NO-UNSAFE-RETRY'],
    behaviours: (keyId) => [connectionReset({ method: 'POST', times: 1, keyId })],
    run: async (mock, secret) => {
      if ((await call(mock, 'faulty-retries-post-after-reset', secret, POST_JSON)) === 0)
        await call(mock, 'faulty-retries-post-after-reset', secret, POST_JSON);
    },
  },
  {
    userAgent: 'correct-retries-post-with-idempotency-key',
    caughtBy: [],
    behaviours: (keyId) => [connectionReset({ method: 'POST', times: 1, keyId })],
    run: async (mock, secret) => {
      const safe = { ...POST_JSON, headers: { ...POST_JSON.headers, 'Idempotency-Key': 'order-1' } };
      if ((await call(mock, 'correct-retries-post-with-idempotency-key', secret, safe)) === 0)
        await call(mock, 'correct-retries-post-with-idempotency-key', secret, safe);
    },
  },
  {
    userAgent: 'faulty-uses-revoked-key-again',
    caughtBy: ['CLIENT-KEY-NOT-REVOKED'],
    behaviours: (keyId) => [revokeKeyAfter(keyId, 2)],
    run: async (mock, secret) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++)
        if ((await call(mock, 'faulty-uses-revoked-key-again', secret)) === 401) break;
      // One more try "in case it was transient": the key was revoked.
      await call(mock, 'faulty-uses-revoked-key-again', secret);
    },
  },
  {
    userAgent: 'correct-stops-on-revoked-key',
    caughtBy: [],
    behaviours: (keyId) => [revokeKeyAfter(keyId, 2)],
    run: async (mock, secret) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++)
        if ((await call(mock, 'correct-stops-on-revoked-key', secret)) === 401) return;
    },
  },
];
