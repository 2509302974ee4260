// The bound on uploads in flight, over any order of arrivals and departures: never more than `max`
// uploads hold a slot, never more than `maxWaiting` wait, an arrival is refused exactly when both
// are full, and every waiting upload gets a slot, in order of arrival, as others leave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { readBody, UploadAborted } from '../../../registry/http/body.ts';
import { RequestError } from '../../../registry/http/respond.ts';
import { UploadGate } from '../../../registry/http/upload-gate.ts';

test('uploads in flight and waiting stay within their bounds, and the waiting enter in order', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 4 }),
      fc.array(fc.boolean(), { maxLength: 60 }),
      async (max, maxWaiting, steps) => {
        const gate = new UploadGate(max, maxWaiting);
        const holding: (() => void)[] = [];
        const waiting: number[] = [];
        const entered: number[] = [];
        let arrivals = 0;
        for (const arrive of steps) {
          if (arrive) {
            const id = arrivals++;
            const full = holding.length + waiting.length >= max + maxWaiting;
            let refused = false;
            const entering = gate.enter().then((release) => {
              if (release === undefined) refused = true;
              else {
                holding.push(release);
                entered.push(id);
              }
            });
            if (holding.length < max) await entering;
            else if (!full) waiting.push(id);
            await Promise.resolve();
            await Promise.resolve();
            assert.equal(refused, full, `arrival ${id}: refused ${refused}, full ${full}`);
          } else if (holding.length > 0) {
            holding.shift()?.();
            if (waiting.length > 0) {
              waiting.shift();
              // The slot passes to the first waiting one.
              for (let tick = 0; tick < 3; tick++) await Promise.resolve();
            }
          }
          assert.ok(holding.length <= max, `${holding.length} in flight, bound ${max}`);
          assert.ok(waiting.length <= maxWaiting);
        }
        assert.deepEqual(
          entered,
          [...entered].sort((a, b) => a - b),
          'entered in order of arrival',
        );
      },
    ),
  );
});

test('a release called twice frees one slot, not two', async () => {
  const gate = new UploadGate(1, 0);
  const release = await gate.enter();
  assert.ok(release);
  release();
  release();
  const first = await gate.enter();
  assert.ok(first);
  assert.equal(await gate.enter(), undefined, 'a second upload finds the one slot taken');
});

test('an upload whose client left while it waited ends at once, so its slot is released', async () => {
  const request = new IncomingMessage(new Socket());
  request.destroy();
  await new Promise((resolve) => setImmediate(resolve));
  await assert.rejects(
    readBody(request, 1024, () => new RequestError(413, 'too_large', 'too large')),
    UploadAborted,
  );
});
