// The JSON body of an admin API request, read once for every endpoint that takes one: its media
// type, its size and its syntax checked, each refusal the admin API's error answer.
import type { IncomingMessage } from 'node:http';
import { adminError, type AdminResponse } from '../http/errors.ts';
import { mediaTypeOf, readBody } from '../http/read-body.ts';

/** The parsed body, or the answer that refuses it. */
export async function readJsonBody(
  req: IncomingMessage,
  maxBytes: number,
): Promise<{ parsed: unknown } | { refusal: AdminResponse }> {
  if (mediaTypeOf(req) !== 'application/json') return { refusal: adminError('unsupported_media_type') };
  const body = await readBody(req, maxBytes);
  if (body.kind === 'too-large')
    return { refusal: adminError('payload_too_large', undefined, { Connection: 'close' }) };
  if (body.kind === 'aborted') return { refusal: adminError('invalid_json') };
  try {
    return { parsed: JSON.parse(body.body.toString('utf8')) as unknown };
  } catch {
    return { refusal: adminError('invalid_json') };
  }
}
