// Keys derived from a real one, for the rules that must reject near misses. Nothing derived here
// is printed: the Redactor masks anything sharing a run of characters with a configured key.
import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomAlphanumeric(length: number): string {
  return Array.from(randomBytes(length), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

/**
 * Begins the random part of a made-up key, where there is room: every exchange goes to the
 * reports, and a reader (or a leak scan) must not take a made-up key for a real one.
 */
export const MADE_UP_MARK = 'unknown';
const MIN_RANDOM = 16;

/**
 * A key no deployment issued, in the shape of `like` when one is known (same prefix up to its
 * last `_` or `-`, same length), so that only the lookup can reject it.
 */
export function unknownKeyLike(like: string | undefined): string {
  if (like === undefined) return `${MADE_UP_MARK}_${randomAlphanumeric(32)}`;
  const prefixEnd = Math.max(like.lastIndexOf('_'), like.lastIndexOf('-')) + 1;
  const prefix = prefixEnd > 0 && prefixEnd < like.length - 8 ? like.slice(0, prefixEnd) : '';
  const rest = like.length - prefix.length;
  const mark = rest >= MADE_UP_MARK.length + MIN_RANDOM ? MADE_UP_MARK : '';
  // 16 or more random characters never equal a given key in practice; the loop makes it certain.
  for (;;) {
    const candidate: string = prefix + mark + randomAlphanumeric(rest - mark.length);
    if (candidate !== like) return candidate;
  }
}

export interface AlteredKey {
  how: string;
  key: string;
}

/** The near misses of a valid key: each must be rejected as an unknown key. */
export function alteredKeys(key: string): AlteredKey[] {
  const last = key.at(-1) ?? 'a';
  const changedLast = last === 'A' ? 'B' : 'A';
  const swappedCase = [...key]
    .map((char) => (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()))
    .join('');
  const variants: AlteredKey[] = [
    { how: 'truncated by one character', key: key.slice(0, -1) },
    { how: 'extended by one character', key: `${key}A` },
    { how: 'last character changed', key: `${key.slice(0, -1)}${changedLast}` },
  ];
  if (swappedCase !== key) variants.push({ how: 'letter case swapped', key: swappedCase });
  return variants;
}
