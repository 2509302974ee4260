// A request body within a bound, a piece at a time. Past the bound the read stops and the request
// is refused (413) without reading the rest; a client that goes away mid-upload ends the read with
// an error, so nothing after it (verifying, storing) ever runs.
import type { IncomingMessage } from 'node:http';
import { RequestError } from './respond.ts';

export class UploadAborted extends Error {
  constructor() {
    super('the client closed the connection before the body was complete');
    this.name = 'UploadAborted';
  }
}

/**
 * Hands each piece of the body to `take` as it arrives (a piece is never kept here); resolves once
 * the body is complete. An error `take` throws ends the read and rejects with it.
 */
export function streamBody(
  request: IncomingMessage,
  limit: number,
  tooLarge: () => RequestError,
  take: (chunk: Buffer) => void,
): Promise<void> {
  // An upload that waited for a slot (upload-gate.ts) may have lost its client meanwhile: its
  // 'close' has passed, and would never come again to end the read.
  if (request.destroyed) return Promise.reject(new UploadAborted());
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    let size = 0;
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      outcome();
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        finish(() => reject(tooLarge()));
        request.pause();
        return;
      }
      try {
        take(chunk);
      } catch (error) {
        finish(() => reject(error instanceof Error ? error : new Error(String(error))));
        request.pause();
      }
    };
    request.on('data', onData);
    request.once('end', () => finish(() => (request.complete ? resolve() : reject(new UploadAborted()))));
    request.once('aborted', () => finish(() => reject(new UploadAborted())));
    request.once('close', () => finish(() => reject(new UploadAborted())));
    request.once('error', () => finish(() => reject(new UploadAborted())));
  });
}

/** The body whole, within the bound: for the small JSON bodies of the operations. */
export async function readBody(
  request: IncomingMessage,
  limit: number,
  tooLarge: () => RequestError,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await streamBody(request, limit, tooLarge, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks);
}
