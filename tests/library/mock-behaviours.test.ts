// The mock's behaviours (library/behaviours.ts, reference-server/behaviours/): each answers the
// requests it matches in place of the reference's, as many times as it says, the journal names it,
// the key behaviours really revoke or rotate the key, and `reset()` restores the reference.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:http2';
import { startReferenceMock, type ReferenceMock } from '../../library/mock.ts';
import {
  connectionReset,
  errorAnswer,
  goAway,
  rateLimited,
  resetStream,
  revokeKeyAfter,
  rotateKeyAfter,
  slowAnswer,
  unavailable,
} from '../../library/behaviours.ts';
import { lookupWith } from '../../conformance/requests/host-map.ts';

const READ = 'key_acme_prod_read';

describe('behaviours of the mock', () => {
  let mock: ReferenceMock;
  before(async () => {
    mock = await startReferenceMock();
  });
  after(() => mock.close());
  beforeEach(() => mock.reset());

  const headersOf = (keyId: string, more: Record<string, string> = {}) => ({
    Authorization: `Bearer ${mock.keys[keyId]?.secret ?? ''}`,
    Accept: 'application/json',
    'User-Agent': 'behaviour-test',
    ...more,
  });
  const get = async (keyId = READ, url = `${mock.baseUrl('acme')}/customers`) => {
    const response = await mock.fetch(url, { headers: headersOf(keyId) });
    return { status: response.status, headers: response.headers, body: await response.text() };
  };

  test('a 429 with Retry-After answers `times` requests, then the reference answers again', async () => {
    await mock.use(rateLimited({ retryAfter: 2, times: 1 }));
    const limited = await get();
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '2');
    assert.match(limited.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(JSON.parse(limited.body) as object), ['error']);
    assert.equal((JSON.parse(limited.body) as { error: { code: string } }).error.code, 'rate_limited');
    assert.equal((await get()).status, 200);
    const entries = await mock.requests();
    assert.deepEqual(
      entries.map((entry) => [entry.status, entry.behaviour, entry.retryAfter]),
      [
        [429, 'error 429 rate_limited', 2],
        [200, undefined, undefined],
      ],
    );
  });

  test('a behaviour matches by tenant, environment, key id, method and path only', async () => {
    await mock.use(
      unavailable({ tenant: 'globex' }),
      unavailable({ environment: 'sandbox' }),
      unavailable({ keyId: 'key_acme_prod_full' }),
      unavailable({ method: 'HEAD' }),
      unavailable({ path: '/v1/other' }),
    );
    assert.equal((await get()).status, 200);
    assert.equal((await get('key_acme_prod_full')).status, 503);
    assert.equal((await get('key_globex_prod_read', `${mock.baseUrl('globex')}/customers`)).status, 503);
    assert.equal((await get('key_acme_dev_read', `${mock.tenants.acme?.sandbox}/customers`)).status, 503);
  });

  test('a later use() takes precedence; within one call the first matching one answers', async () => {
    await mock.use(unavailable({ times: 5 }));
    await mock.use(rateLimited({ times: 1 }), errorAnswer({ status: 500, code: 'boom', times: 1 }));
    assert.deepEqual([(await get()).status, (await get()).status, (await get()).status], [429, 500, 503]);
    const states = await mock.behaviours();
    assert.deepEqual(
      states.map((state) => [state.name, state.matched, state.remaining]),
      [
        ['error 429 rate_limited', 1, 0],
        ['error 500 boom', 1, 0],
        ['error 503 service_unavailable', 1, 4],
      ],
    );
  });

  test('a delay answers with the reference, later; reset() removes behaviours and empties the journal', async () => {
    await mock.use(slowAnswer(50, { times: 1 }));
    const started = performance.now();
    const slow = await get();
    assert.equal(slow.status, 200);
    assert.ok(performance.now() - started >= 50, 'the answer came after the delay');
    assert.equal((await mock.requests({ behaviour: 'delay 50 ms' })).length, 1);
    await mock.use(unavailable());
    await mock.reset();
    assert.deepEqual(await mock.behaviours(), []);
    assert.deepEqual(await mock.requests(), []);
    assert.equal((await get()).status, 200);
  });

  test('a connection reset over HTTP/1.1 leaves the request unanswered, journaled as cut', async () => {
    await mock.use(connectionReset({ times: 1 }));
    await assert.rejects(get(), /fetch failed/);
    const [entry] = await mock.requests();
    assert.equal(entry?.status, 0);
    assert.equal(entry?.cut, 'reset');
    assert.equal(entry?.key, READ);
  });

  for (const [behaviour, rstCode, refused] of [
    [goAway({ times: 1 }), 2, undefined],
    [goAway({ times: 1, refused: true }), 7, true],
    [resetStream({ times: 1 }), 2, undefined],
    [resetStream({ times: 1, refused: true }), 7, true],
  ] as const) {
    test(`over HTTP/2, ${behaviour.kind}${behaviour.refused ? ' (refused)' : ''} ends the stream with code ${rstCode}`, async () => {
      await mock.use(behaviour);
      const session = connect(mock.baseUrl('acme'), { ca: mock.ca, lookup: lookupWith(mock.hosts) });
      session.on('error', () => {});
      const goaways: number[] = [];
      session.on('goaway', (code: number) => goaways.push(code));
      const stream = session.request({ ':path': '/v1/customers', ...lowerCased(headersOf(READ)) });
      stream.on('error', () => {});
      stream.resume();
      await new Promise((resolve) => stream.on('close', resolve));
      session.destroy();
      assert.equal(stream.rstCode, rstCode);
      if (behaviour.kind === 'goaway') assert.deepEqual(goaways, [0]);
      const [entry] = await mock.requests();
      assert.equal(entry?.protocol, 'h2');
      assert.equal(entry?.cut, behaviour.kind);
      assert.equal(entry?.refused, refused);
    });
  }

  test('a key revoked after its 2nd request: the 3rd gets invalid_api_key, and the store says revoked', async () => {
    const minted = await mock.mintKey({ tenant: 'acme', access: 'read_only' });
    await mock.use(revokeKeyAfter(minted.id, 2));
    const send = async () =>
      (
        await mock.fetch(`${mock.baseUrl('acme')}/customers`, {
          headers: { Authorization: `Bearer ${minted.secret}`, Accept: 'application/json' },
        })
      ).status;
    assert.deepEqual([await send(), await send(), await send()], [200, 200, 401]);
    const entries = await mock.requests({ keyId: minted.id });
    assert.deepEqual(
      entries.map((entry) => [entry.status, entry.keyRevoked, entry.behaviour]),
      [
        [200, false, undefined],
        [200, false, `revoke-key ${minted.id} after 2`],
        [401, true, undefined],
      ],
    );
  });

  test('a key rotated after its 1st request: the old one is refused, the replacement works', async () => {
    const minted = await mock.mintKey({ tenant: 'acme', access: 'read_only' });
    await mock.use(rotateKeyAfter(minted.id, 1));
    const send = async (secret: string) =>
      (
        await mock.fetch(`${mock.baseUrl('acme')}/customers`, {
          headers: { Authorization: `Bearer ${secret}`, Accept: 'application/json' },
        })
      ).status;
    assert.equal(await send(minted.secret), 200);
    assert.equal(await send(minted.secret), 401);
    const replacement = (await mock.behaviours())[0]?.replacement;
    assert.ok(replacement && replacement.id !== minted.id);
    assert.equal(await send(replacement.secret), 200);
  });

  test('an invalid behaviour is refused, saying what is wrong; a code of spec §7 needs breaksRule', async () => {
    await assert.rejects(mock.use(errorAnswer({ status: 200, code: 'fine' })), /status: must be >= 400/);
    await assert.rejects(mock.use(errorAnswer({ status: 401, code: 'invalid_api_key' })), /breaksRule/);
    await mock.use(
      errorAnswer({ status: 401, code: 'invalid_api_key', breaksRule: 'CLIENT-KEY-KNOWN', times: 1 }),
    );
    assert.equal((await get()).status, 401);
    const misspelt = { kind: 'error', status: 429, code: 'slow_down', retry_after: 2 } as never;
    await assert.rejects(mock.use(misspelt), /retry_after|must be one of/);
  });
});

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
