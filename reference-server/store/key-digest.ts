// The digest a presented key is looked up by in memory (decision 0006).
import * as crypto from 'node:crypto';

/**
 * The SHA-256 of a key, the digest every request's key is looked up by. A key is 190 random bits
 * (a fixture key is public anyway), so an unkeyed hash reveals nothing usable; the HMAC stays what
 * the store file keeps. `crypto.hash` (Node 20.12 and later) is the one-shot form, without an
 * `Hmac` or `Hash` object per request.
 */
export const secretDigest: (secret: string) => string =
  typeof crypto.hash === 'function'
    ? (secret) => crypto.hash('sha256', secret, 'base64')
    : (secret) => crypto.createHash('sha256').update(secret, 'utf8').digest('base64');
