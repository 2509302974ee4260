// The signature of a delivery, as GitHub signs its webhooks: an HMAC-SHA256 of the body's exact
// bytes with the webhook's secret, in hex, after `sha256=`. A receiver computes the same over the
// bytes it received and compares in constant time (verifySignature does).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Registry-Signature-256';
export const EVENT_HEADER = 'X-Registry-Event';
export const EVENT_ID_HEADER = 'X-Registry-Event-Id';
export const DELIVERY_HEADER = 'X-Registry-Delivery';

export function signature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** True when `header` is the signature of `body` with `secret`. */
export function verifySignature(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signature(secret, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
