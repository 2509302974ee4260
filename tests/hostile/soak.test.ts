// A slice of `npm run soak` (tests/hostile/soak.ts): a few thousand cases of the fuzz model over
// HTTP/1.1 and HTTP/2 at once, against a reference server in its own process, with the soak's
// checks — every answer as the model allows, no answer with another tenant's data, no 5xx. The
// seed is random and printed; SOAK_SEED replays a run.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { test } from 'node:test';
import { startChildServer } from './child-server.ts';
import { runSoak } from './soak.ts';

const REQUESTS = 4_000;
/** A guard against a hang, not a speed limit: the slice takes some 10 s on a quiet machine. */
const TIME_LIMIT_MS = 60_000;

test(`soak slice: ${REQUESTS} requests over HTTP/1.1 and HTTP/2, every answer as the model allows`, async (t) => {
  const seed = Number(process.env.SOAK_SEED ?? randomInt(1, 2 ** 31 - 1));
  const server = await startChildServer();
  try {
    const result = await runSoak({
      port: server.port,
      ca: server.ca,
      knowledge: server.knowledge,
      requests: REQUESTS,
      timeLimitMs: TIME_LIMIT_MS,
      seed,
      http1Connections: 8,
      http2Streams: 32,
    });
    const { http1, http2 } = result;
    t.diagnostic(
      `seed ${seed}: HTTP/1.1 ${http1.requests} ${JSON.stringify(http1.answers)}; ` +
        `HTTP/2 ${http2.requests} (${http2.handWritten} through the frame writer) ${JSON.stringify(http2.answers)}`,
    );
    const replay = `Replay: SOAK_SEED=${seed} node --import tsx --test tests/hostile/soak.test.ts`;
    assert.deepEqual(result.examples, [], `disagreements with the model (${replay})`);
    for (const [name, tally] of [
      ['HTTP/1.1', http1],
      ['HTTP/2', http2],
    ] as const) {
      assert.equal(tally.disagreements, 0, name);
      assert.equal(tally.wrongTenantData, 0, `${name}: answers with another tenant's data (${replay})`);
      assert.equal(tally.serverErrors, 0, `${name}: 5xx answers (${replay})`);
      // The slice proves nothing unless it ran, and answered with data as well as rejections.
      assert.ok(tally.requests >= REQUESTS / 8, `${name}: only ${tally.requests} requests`);
      assert.ok((tally.answers['200'] ?? 0) > 0, `${name}: no answer with data`);
    }
    assert.ok(http2.handWritten > 0 && http2.handWritten < http2.requests, 'both HTTP/2 paths were used');
    assert.ok((http2.answers[`reset 1`] ?? 0) > 0, 'no HTTP/2 request was malformed');
  } finally {
    await server.stop();
  }
});
