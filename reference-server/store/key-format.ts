// The reference's key format (prefix, length, the characters shown) and how a new key is drawn.
import * as crypto from 'node:crypto';
import type { Environment } from '../http/hosts.ts';

/**
 * The reference's key format (the spec does not show one): `mbk_prod_` for production keys and
 * `mbk_dev_` for development (sandbox) keys, then 32 base62 characters.
 */
export const KEY_PREFIX_BY_ENVIRONMENT: Record<Environment, 'mbk_prod_' | 'mbk_dev_'> = {
  production: 'mbk_prod_',
  sandbox: 'mbk_dev_',
};

export const KEY_RANDOM_LENGTH = 32;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Characters shown after the prefix so that a person can recognise a key they hold. */
export const VISIBLE_SUFFIX_LENGTH = 4;

/** A new key: its environment's prefix and 32 base62 characters from the CSPRNG, without bias. */
export function generateKeySecret(environment: Environment): string {
  // Bytes at or above 248 (= 4 × 62) are dropped so that every character is equally likely.
  // Each batch keeps about 97 %, so two batches nearly always suffice; ten is the bound.
  let random = '';
  for (let batch = 0; batch < 10 && random.length < KEY_RANDOM_LENGTH; batch++) {
    for (const byte of crypto.randomBytes(2 * KEY_RANDOM_LENGTH)) {
      if (byte < 248 && random.length < KEY_RANDOM_LENGTH) random += BASE62[byte % 62];
    }
  }
  if (random.length < KEY_RANDOM_LENGTH) throw new Error('The random source returned too few usable bytes.');
  return `${KEY_PREFIX_BY_ENVIRONMENT[environment]}${random}`;
}
