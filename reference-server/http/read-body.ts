// Reads a request body for the panel's forms and the admin API, with a size limit: a larger body
// is not buffered, and its request is answered 413. The server's requestTimeout bounds the time.
import type { IncomingMessage } from 'node:http';

export type BodyResult = { kind: 'ok'; body: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > maxBytes) return discard(req);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) return discard(req);
      chunks.push(chunk);
    }
  } catch {
    return { kind: 'aborted' };
  }
  return { kind: 'ok', body: Buffer.concat(chunks) };
}

/** The media type of `Content-Type`, lowercased and without parameters. */
export function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

function discard(req: IncomingMessage): BodyResult {
  // The rest is drained without being kept, and the connection closed after the answer, so that
  // the client's unread body is never parsed as a next request.
  req.resume();
  return { kind: 'too-large' };
}
