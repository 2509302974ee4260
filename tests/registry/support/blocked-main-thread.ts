// An HTTPS answer fetched while this (the main) thread is blocked: a worker thread of the test
// sends the request only once the main thread waits in Atomics.wait, and wakes it when the answer
// is whole. The main thread runs no JavaScript in between — no event loop turn, no timer, no
// message — so an answer that arrives was made without it. Bounded: the wait gives up after a
// minute ('timed-out'), and so does the worker's request.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

const FETCHER = `
const { workerData, parentPort } = require('node:worker_threads');
const https = require('node:https');
const state = new Int32Array(workerData.shared, 0, 3);
const bytes = new Uint8Array(workerData.shared, 12);
const done = (status, body) => {
  const kept = body.subarray(0, bytes.length);
  bytes.set(kept);
  Atomics.store(state, 1, status);
  Atomics.store(state, 2, kept.length);
  Atomics.store(state, 0, 2);
  Atomics.notify(state, 0);
};
parentPort.postMessage('ready');
Atomics.wait(state, 0, 0, 60000);
const request = https.get(workerData.url, { ca: workerData.ca, headers: workerData.headers, timeout: 60000 }, (response) => {
  const chunks = [];
  response.on('data', (chunk) => chunks.push(chunk));
  response.on('end', () => done(response.statusCode ?? 0, Buffer.concat(chunks)));
});
request.on('timeout', () => request.destroy(new Error('timeout')));
request.on('error', (error) => done(-1, Buffer.from(error.message)));
`;

export interface BlockedAnswer {
  /** 'ok' when the answer woke the main thread; 'timed-out' when none came within the bound. */
  woke: 'ok' | 'timed-out' | 'not-equal';
  status: number;
  text: string;
}

export async function answerWhileBlocked(
  url: string,
  ca: string,
  headers: Record<string, string> = {},
): Promise<BlockedAnswer> {
  const shared = new SharedArrayBuffer(12 + 256 * 1024);
  const worker = new Worker(FETCHER, { eval: true, workerData: { shared, url, ca, headers } });
  try {
    await once(worker, 'message');
    const state = new Int32Array(shared, 0, 3);
    Atomics.store(state, 0, 1);
    Atomics.notify(state, 0);
    // From here until the answer, this thread is blocked: nothing of the registry runs on it.
    const woke = Atomics.wait(state, 0, 1, 60_000);
    const length = Atomics.load(state, 2);
    return {
      woke,
      status: Atomics.load(state, 1),
      text: Buffer.from(new Uint8Array(shared, 12, length)).toString('utf8'),
    };
  } finally {
    await worker.terminate();
  }
}
