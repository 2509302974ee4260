// Hostile HTTP/2 clients against the reference server, each attack written frame by frame: rapid
// reset (CVE-2023-44487), a CONTINUATION flood (CVE-2024-27316), header lists far beyond the 16 KiB
// limit, and far more streams than the 100 the server allows. For each: the attacking connection
// is closed or its streams refused — the test names the GOAWAY and RST_STREAM codes the server
// sends — a well-behaved client gets its 200 over HTTP/2 and over HTTP/1.1 while the attack runs
// and after it, and the server's resident memory grows by less than a fixed bound. The server runs
// in a process of its own, so that its memory is measured alone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { constants } from 'node:http2';
import { isDeepStrictEqual } from 'node:util';
import {
  FRAME_FLAG,
  FRAME_TYPE,
  frame,
  headerBlock,
  headersFrames,
  rstStream,
} from '../../conformance/requests/h2-frames.ts';
const HTTP2_MAX_CONCURRENT_STREAMS = 100;
import { DEFAULT_LIMITS } from '../../reference-server/server.ts';
import { RawH2Connection, SETTING, ping, type RawH2Options } from './raw-h2-connection.ts';
import { probe, probedDuring, startChildServer, validRequest, type ChildServer } from './child-server.ts';
import { overHttp2 } from './h2-model.ts';

/**
 * The server's request time limit, shortened from 30 s so that streams held open are reset within
 * the test.
 */
const REQUEST_TIMEOUT_MS = 3_000;
/**
 * How much the server's resident set may grow over one attack. Generous: the first burst of
 * attacks raises it by about 50 MiB, which later bursts do not add to; but the CONTINUATION floods
 * alone may send 192 MiB of header fields, which a server keeping what it is sent would hold.
 */
const RSS_GROWTH_BOUND = 96 * 1024 * 1024;
/** How much the V8 heap in use after a garbage collection may grow: what the server still holds. */
const HEAP_GROWTH_BOUND = 24 * 1024 * 1024;
/**
 * The server's idle time-out, raised from 5 s (every other limit is the default): on a machine busy enough to leave the server's
 * process unscheduled for 5 s, its idle timer fired before it read the attacker's waiting frames,
 * and the rapid-reset connection was closed as idle (GOAWAY NO_ERROR) instead of by nghttp2's
 * defence (INTERNAL_ERROR). What the tests prove of idle connections — closed — holds at 10 s.
 */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/** How long the server has to close an attacking connection (its idle time-out is 10 s). */
const CLOSE_WAIT_MS = 30_000;
/** nghttp2's rapid-reset limit: this many streams reset at once, then 33 a second. */
const RESET_BURST = 1_000;

let server: ChildServer;
let knowledge: ChildServer['knowledge'];
/** The header block of a well-behaved request: a key of acme's production that reads its customers. */
let validBlock: Buffer;
let host: string;
/** Whose customers the well-behaved request gets. */
let validScope: { tenant: string; environment: 'production' | 'sandbox' };

before(async () => {
  server = await startChildServer({
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
  });
  knowledge = server.knowledge;
  const valid = validRequest(knowledge);
  const request = overHttp2(valid, knowledge, DEFAULT_LIMITS);
  if (!request?.servername || valid.expect.kind !== 'data')
    throw new Error('The valid request has no HTTP/2 form.');
  validScope = valid.expect;
  validBlock = headerBlock(request.fields);
  host = request.servername;
  // Warm up both protocols, so that what an attack adds is not the server's first use of them.
  for (let round = 0; round < 20; round += 1) assert.deepEqual(await probe(server), []);
});

after(async () => {
  await server.stop();
});

function open(options: Partial<RawH2Options> = {}): Promise<RawH2Connection> {
  return RawH2Connection.open({ port: server.port, ca: server.ca, servername: host, ...options });
}

/** Runs `attack` with probes during and after it; asserts they all got their 200, and the memory bound. */
async function underAttack<T>(attack: () => Promise<T>): Promise<T> {
  const before = await server.memory();
  const { result, probes, problems } = await probedDuring(server, attack);
  assert.deepEqual(problems, [], `a well-behaved client was not served during or after the attack`);
  assert.ok(probes >= 2);
  const after = await server.memory();
  const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  assert.ok(
    after.rss - before.rss < RSS_GROWTH_BOUND,
    `the server's resident set grew by ${mib(after.rss - before.rss)} over the attack`,
  );
  assert.ok(
    after.heapUsed - before.heapUsed < HEAP_GROWTH_BOUND,
    `the server's heap in use grew by ${mib(after.heapUsed - before.heapUsed)} over the attack`,
  );
  return result;
}

function times<T>(count: number, make: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_unused, index) => make(index)));
}

/** Whether stream `streamId` of `connection` was answered with exactly the valid request's customers. */
function servedData(connection: RawH2Connection, streamId: number): boolean {
  const body = connection.bodies.get(streamId);
  const expected = knowledge.customers(validScope.tenant, validScope.environment);
  try {
    return isDeepStrictEqual((JSON.parse(body?.toString('utf8') ?? '') as { data?: unknown }).data, expected);
  } catch {
    return false;
  }
}

const RAPID_RESET_CONNECTIONS = 6;
const RAPID_RESET_STREAMS = 20_000;

test(`rapid reset: ${RAPID_RESET_CONNECTIONS} connections open and cancel ${RAPID_RESET_STREAMS} streams each; each is stopped by GOAWAY (INTERNAL_ERROR) after about ${RESET_BURST} streams and closed`, async () => {
  const attacks = await underAttack(() =>
    times(RAPID_RESET_CONNECTIONS, async () => {
      const connection = await open();
      let sent = 0;
      while (sent < RAPID_RESET_STREAMS && connection.goaways.length === 0 && !connection.closed) {
        const batch: Buffer[] = [];
        for (let index = 0; index < 200; index += 1, sent += 1) {
          const streamId = 1 + 2 * sent;
          batch.push(...headersFrames(streamId, validBlock, true), rstStream(streamId));
        }
        await connection.write(Buffer.concat(batch));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await connection.until(() => connection.closed, CLOSE_WAIT_MS);
      connection.close();
      return { sent, goaways: connection.goaways, closed: connection.closed };
    }),
  );
  for (const { sent, goaways, closed } of attacks) {
    const [first] = goaways;
    assert.ok(first, `no GOAWAY after ${sent} streams opened and reset`);
    assert.equal(first.errorCode, constants.NGHTTP2_INTERNAL_ERROR);
    // The server stopped taking streams after its burst (plus what its rate refilled meanwhile),
    // while the client kept opening them.
    assert.ok(first.lastStreamId < 2 * 2 * RESET_BURST, `last stream taken ${first.lastStreamId}`);
    assert.ok(sent > first.lastStreamId / 2, `${sent} streams sent, last taken ${first.lastStreamId}`);
    assert.ok(closed, 'the server did not close the connection after its GOAWAY');
  }
});

const FLOOD_CONNECTIONS = 6;
/** Frames a flood may send before the server must have closed it: 64 MiB of 1 KiB frames. */
const FLOOD_FRAMES = 64 * 1024;

test(`CONTINUATION flood: a header block that never ends, on ${FLOOD_CONNECTIONS} connections, is cut off by GOAWAY and the connection closed`, async () => {
  const filler = headerBlock([['x-filler', 'a'.repeat(1_000)]]);
  const floods = await underAttack(() =>
    times(FLOOD_CONNECTIONS, async (index) => {
      const connection = await open();
      // A HEADERS frame without END_HEADERS: every frame after it must be a CONTINUATION.
      await connection.write(frame(FRAME_TYPE.HEADERS, FRAME_FLAG.END_STREAM, 1, validBlock));
      // Half the floods carry header fields, half carry nothing at all.
      const piece = index % 2 === 0 ? filler : Buffer.alloc(0);
      let sent = 0;
      while (sent < FLOOD_FRAMES && !connection.closed) {
        const batch: Buffer[] = [];
        for (let count = 0; count < 64; count += 1, sent += 1)
          batch.push(frame(FRAME_TYPE.CONTINUATION, 0, 1, piece));
        await connection.write(Buffer.concat(batch));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await connection.until(() => connection.closed, CLOSE_WAIT_MS);
      connection.close();
      return { sent, goaways: connection.goaways, closed: connection.closed, answered: connection.answered };
    }),
  );
  for (const { sent, goaways, closed, answered } of floods) {
    assert.ok(closed, `the connection was still open after ${sent} CONTINUATION frames`);
    assert.ok(sent < FLOOD_FRAMES, `the server read all ${sent} CONTINUATION frames`);
    // nghttp2 gives up on the session; its GOAWAY goes out only if the socket is still writable.
    assert.ok(
      goaways.every((goaway) => goaway.errorCode === constants.NGHTTP2_INTERNAL_ERROR),
      `GOAWAY codes ${goaways.map((goaway) => goaway.errorCode).join(', ')}`,
    );
    assert.equal(answered.size, 0, 'the endless request was answered');
  }
});

/** Header fields beside a valid request's: 4 000 small ones (past the count limit), or 6 of 16 000 bytes. */
const HUGE_LISTS = {
  'many fields': Array.from({ length: 4_000 }, (_unused, index): [string, string] => [
    `x-field-${index}`,
    'v'.repeat(16),
  ]),
  'large fields': Array.from({ length: 6 }, (_unused, index): [string, string] => [
    `x-large-${index}`,
    'v'.repeat(16_000),
  ]),
} as const;
/** Huge header lists sent on each attacking connection, each followed by a well-behaved request. */
const HUGE_ROUNDS = 25;
/** The largest frame the server accepts (RFC 9113 §4.2: its SETTINGS_MAX_FRAME_SIZE is the default). */
const MAX_FRAME_SIZE = 16_384;
/** The codes a stream with too large a header list is reset with: Node's, or nghttp2's when it gets there first. */
const TOO_LARGE = [constants.NGHTTP2_ENHANCE_YOUR_CALM, constants.NGHTTP2_INTERNAL_ERROR];

test('header lists far beyond 16 KiB, split over CONTINUATION frames: each stream is reset, whether or not the client acknowledged the SETTINGS, and the connection serves the next request; one field beyond HPACK’s bound, or the list in one frame beyond the frame size, closes the connection (GOAWAY)', async () => {
  const results = await underAttack(async () => {
    const cases = Object.entries(HUGE_LISTS).flatMap(([shape, fields]) =>
      [true, false].map((acknowledged) => ({
        shape,
        acknowledged,
        block: Buffer.concat([validBlock, headerBlock(fields)]),
      })),
    );
    const repeated = await Promise.all(
      [...cases, ...cases].map(async ({ shape, acknowledged, block }) => {
        // A client that acknowledges the server's SETTINGS waits for the server to know it; one
        // that does not sends at once (RFC 9113 §6.5.3: the server's limit may not hold it yet).
        const connection = await open({ acknowledgeSettings: acknowledged });
        if (acknowledged) await connection.until(() => connection.settingsAcknowledged, CLOSE_WAIT_MS);
        const fragments = Math.ceil(block.length / MAX_FRAME_SIZE);
        for (let round = 0; round < HUGE_ROUNDS; round += 1) {
          const streamId = 1 + 4 * round;
          await connection.write(Buffer.concat(headersFrames(streamId, block, true, fragments)));
          await connection.write(Buffer.concat(headersFrames(streamId + 2, validBlock, true)));
        }
        // Wait for every answer the assertions read, resets as well as bodies: on a busy machine a
        // reset can reach the client after the data of the stream sent behind it.
        const resetCount = () => [...connection.resets.values()].reduce((sum, count) => sum + count, 0);
        await connection.until(
          () => (connection.bodies.size === HUGE_ROUNDS && resetCount() >= HUGE_ROUNDS) || connection.closed,
          CLOSE_WAIT_MS,
        );
        connection.close();
        return {
          label: `${shape}, ${acknowledged ? 'after acknowledging the SETTINGS' : 'never acknowledging them'}`,
          resets: connection.resets,
          served: Array.from({ length: HUGE_ROUNDS }, (_unused, round) =>
            servedData(connection, 3 + 4 * round),
          ),
          answeredHuge: [...connection.answered].filter((id) => id % 4 === 1).length,
          goaways: connection.goaways,
        };
      }),
    );
    const field = Buffer.concat([validBlock, headerBlock([['x-big', 'v'.repeat(100_000)]])]);
    const oneField = await open();
    await oneField.write(
      Buffer.concat(headersFrames(1, field, true, Math.ceil(field.length / MAX_FRAME_SIZE))),
    );
    await oneField.until(() => oneField.closed, CLOSE_WAIT_MS);
    oneField.close();
    const oneFrame = await open();
    const list = Buffer.concat([validBlock, headerBlock(HUGE_LISTS['many fields'])]);
    await oneFrame.write(frame(FRAME_TYPE.HEADERS, FRAME_FLAG.END_STREAM | FRAME_FLAG.END_HEADERS, 1, list));
    await oneFrame.until(() => oneFrame.closed, CLOSE_WAIT_MS);
    oneFrame.close();
    return { repeated, oneField, oneFrame };
  });
  for (const { label, resets, served, answeredHuge, goaways } of results.repeated) {
    const codes = [...resets.keys()];
    assert.ok(
      codes.every((code) => TOO_LARGE.includes(code)),
      `${label}: reset with ${codes.join(', ')}`,
    );
    assert.equal(
      [...resets.values()].reduce((sum, count) => sum + count, 0),
      HUGE_ROUNDS,
      `${label}: resets`,
    );
    assert.equal(answeredHuge, 0, `${label}: a huge header list was answered`);
    assert.ok(
      served.every(Boolean),
      `${label}: the requests after the huge ones got their data: ${served.join(',')}`,
    );
    assert.deepEqual(goaways, [], `${label}: the connection was closed`);
  }
  assert.equal(results.oneField.goaways[0]?.errorCode, constants.NGHTTP2_COMPRESSION_ERROR);
  assert.ok(results.oneField.closed);
  assert.equal(results.oneFrame.goaways[0]?.errorCode, constants.NGHTTP2_FRAME_SIZE_ERROR);
  assert.ok(results.oneFrame.closed);
});

const STREAMS = 1_000;

test(`${STREAMS} streams at once, against the ${HTTP2_MAX_CONCURRENT_STREAMS} allowed, by clients that never read an answer: ${HTTP2_MAX_CONCURRENT_STREAMS} are answered; past the acknowledged limit the connection is closed, before it the rest are refused (REFUSED_STREAM) and the ${HTTP2_MAX_CONCURRENT_STREAMS} held ones reset (CANCEL) at the request time limit`, async () => {
  // A flow-control window of 0: the server can send its answers' HEADERS, never their bodies, so
  // every stream stays open.
  const neverReads = { settings: [[SETTING.INITIAL_WINDOW_SIZE, 0]] as const };
  const allStreams = Buffer.concat(
    Array.from({ length: STREAMS }, (_unused, index) =>
      headersFrames(1 + 2 * index, validBlock, false),
    ).flat(),
  );
  const results = await underAttack(async () => {
    const overLimit = times(8, async () => {
      const connection = await open(neverReads);
      await connection.until(() => connection.settingsAcknowledged, CLOSE_WAIT_MS);
      await connection.write(allStreams);
      await connection.until(() => connection.closed, CLOSE_WAIT_MS);
      connection.close();
      return { answered: [...connection.answered], closed: connection.closed, resets: connection.resets };
    });
    const beforeAcknowledging = times(4, async () => {
      const connection = await open({ ...neverReads, acknowledgeSettings: false });
      await connection.write(allStreams);
      // Counted by stream, and held ones by how many were held at once: on a machine busy enough
      // that the server took longer than its request time limit to read the 1000 HEADERS, it
      // answered 100, reset them at the limit, then answered the next 100 — never over 100 at once.
      const refused = (): number => connection.streamsResetWith(constants.NGHTTP2_REFUSED_STREAM);
      const cancelled = (): number => connection.streamsResetWith(constants.NGHTTP2_CANCEL);
      const everyStreamEnded = (): boolean => refused() + cancelled() >= STREAMS || connection.closed;
      // PINGs keep the connection from being idle while its streams are held.
      const deadline = Date.now() + CLOSE_WAIT_MS;
      while (!everyStreamEnded() && Date.now() < deadline) {
        await connection.write(ping());
        await connection.until(everyStreamEnded, 500);
      }
      // Left alone now, the connection is idle: the server closes it.
      await connection.until(() => connection.closed, CLOSE_WAIT_MS);
      connection.close();
      return {
        answered: connection.answered.size,
        heldAtOnce: connection.mostHeldAtOnce,
        refused: refused(),
        cancelled: cancelled(),
        closed: connection.closed,
      };
    });
    return { overLimit: await overLimit, beforeAcknowledging: await beforeAcknowledging };
  });
  const firstStreams = Array.from(
    { length: HTTP2_MAX_CONCURRENT_STREAMS },
    (_unused, index) => 1 + 2 * index,
  );
  for (const { answered, closed, resets } of results.overLimit) {
    assert.deepEqual(answered, firstStreams, 'the streams answered');
    assert.ok(closed, 'the connection was not closed');
    assert.deepEqual([...resets.keys()], [], 'streams were reset instead');
  }
  for (const { answered, heldAtOnce, refused, cancelled, closed } of results.beforeAcknowledging) {
    assert.equal(heldAtOnce, HTTP2_MAX_CONCURRENT_STREAMS, 'the most streams held at once');
    assert.equal(refused + answered, STREAMS, 'every stream not answered was refused');
    assert.equal(cancelled, answered, 'every held stream reset at the request time limit');
    assert.ok(closed, 'the idle connection was not closed');
  }
});
