// The key store's writer: every request is answered by a write that began after it, requests made
// during a write share the next one, and a failed write rejects only the requests it was to serve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoalescingWriter } from '../../../reference-server/store/coalescing-writer.ts';

/** A write that waits until `finish` is called, recording the state it saw when it began. */
function controlledWrites() {
  const began: number[] = [];
  const pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  let state = 0;
  const writer = new CoalescingWriter(
    () =>
      new Promise<void>((resolve, reject) => {
        began.push(state);
        pending.push({ resolve, reject });
      }),
  );
  const settleNext = async (error?: Error): Promise<void> => {
    for (let turn = 0; turn < 20 && pending.length === 0; turn++) await Promise.resolve();
    const next = pending.shift();
    assert.ok(next, 'no write was under way');
    if (error) next.reject(error);
    else next.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { writer, began, settleNext, change: () => (state += 1) };
}

test('changes made while a write is under way share the next write, which sees all of them', async () => {
  const { writer, began, settleNext, change } = controlledWrites();
  change();
  const first = writer.request();
  for (let turn = 0; turn < 20 && began.length === 0; turn++) await Promise.resolve();
  assert.equal(began.length, 1, 'the first write has not begun');
  const later: Array<Promise<void>> = [];
  for (let index = 0; index < 100; index++) {
    change();
    later.push(writer.request());
  }
  let laterDone = false;
  void Promise.all(later).then(() => (laterDone = true));
  await settleNext();
  await first;
  assert.equal(laterDone, false, 'a change made during a write was acknowledged by that write');
  await settleNext();
  await Promise.all(later);
  assert.deepEqual(began, [1, 101], 'two writes for 101 changes, the second seeing every change');
  await writer.idle();
});

test('a failed write rejects its own requests only; the next write serves the next ones', async () => {
  const { writer, settleNext, change } = controlledWrites();
  change();
  const failing = writer.request();
  await settleNext(new Error('disk full'));
  await assert.rejects(failing, /disk full/);
  change();
  const next = writer.request();
  await settleNext();
  await next;
  await writer.idle();
});
