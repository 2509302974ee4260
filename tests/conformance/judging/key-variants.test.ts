// The keys the rules send to be rejected (conformance/judging/key-variants.ts): a made-up key in
// the shape of a real one, marked as made up where there is room, never the real one; the near
// misses of a key, each differing from it in the one way its name says. Over the space of keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { alteredKeys, MADE_UP_MARK, unknownKeyLike } from '../../../conformance/judging/key-variants.ts';
import { AUTH_REJECTION_CODES } from '../../../conformance/judging/spec-errors.ts';

const ALPHANUMERIC = /^[A-Za-z0-9]*$/;
const keyChars = fc.constantFrom(...'abcXYZ019_-'.split(''));
const keys = fc.array(keyChars, { minLength: 1, maxLength: 60 }).map((chars) => chars.join(''));

test('an unknown key like a real one: its prefix up to the last _ or -, its length, random alphanumerics, never itself', () => {
  fc.assert(
    fc.property(keys, (like) => {
      const made = unknownKeyLike(like);
      assert.equal(made.length, like.length);
      assert.notEqual(made, like);
      const prefixEnd = Math.max(like.lastIndexOf('_'), like.lastIndexOf('-')) + 1;
      const prefix = prefixEnd > 0 && prefixEnd < like.length - 8 ? like.slice(0, prefixEnd) : '';
      assert.ok(made.startsWith(prefix));
      const rest = made.slice(prefix.length);
      assert.match(rest, ALPHANUMERIC);
      if (rest.length >= MADE_UP_MARK.length + 16)
        assert.ok(rest.startsWith(MADE_UP_MARK), `${made} is marked`);
    }),
  );
});

test('unknown keys of the usual shapes', () => {
  assert.match(
    unknownKeyLike('mbk_prod_EHUEYGExFL9eKl61mpA1K6lMRQu5UCAA'),
    /^mbk_prod_unknown[A-Za-z0-9]{25}$/,
  );
  // The separator is the last of _ and -, whichever comes later.
  assert.match(unknownKeyLike('sk-live_0123456789abcdefghijklmn'), /^sk-live_unknown[A-Za-z0-9]{17}$/);
  assert.match(unknownKeyLike('sk_live-0123456789abcdefghijklmn'), /^sk_live-unknown[A-Za-z0-9]{17}$/);
  // No room for the mark after the prefix (fewer than 16 characters beside it): random alone.
  assert.match(unknownKeyLike('pre_0123456789abcdefghij'), /^pre_[A-Za-z0-9]{20}$/);
  assert.doesNotMatch(unknownKeyLike('pre_0123456789abcdefghij'), /^pre_unknown/);
  // A separator too near the end (8 characters or fewer after it) is no prefix.
  assert.match(unknownKeyLike('abcdefghijklmnopqrstuvwxyz_12345678'), /^unknown[A-Za-z0-9]{28}$/);
  assert.match(
    unknownKeyLike('abcdefghijklmnopqrstuvwxyz_123456789'),
    /^abcdefghijklmnopqrstuvwxyz_[A-Za-z0-9]{9}$/,
  );
  // No key known: the mark and 32 random characters.
  assert.match(unknownKeyLike(undefined), /^unknown_[A-Za-z0-9]{32}$/);
  // Random: two made-up keys differ.
  assert.notEqual(unknownKeyLike(undefined), unknownKeyLike(undefined));
  // A one-character key still gets another one.
  for (let attempt = 0; attempt < 20; attempt += 1) assert.notEqual(unknownKeyLike('a'), 'a');
});

test('the near misses of a key: one shorter, one longer, the last character changed, the case swapped', () => {
  assert.deepEqual(alteredKeys('mbk_prod_abcDEF'), [
    { how: 'truncated by one character', key: 'mbk_prod_abcDE' },
    { how: 'extended by one character', key: 'mbk_prod_abcDEFA' },
    { how: 'last character changed', key: 'mbk_prod_abcDEA' },
    { how: 'letter case swapped', key: 'MBK_PROD_ABCdef' },
  ]);
  // A key ending in A is changed to B; a key without letters has no case to swap.
  assert.deepEqual(alteredKeys('123_A').at(2), { how: 'last character changed', key: '123_B' });
  assert.deepEqual(alteredKeys('123_9'), [
    { how: 'truncated by one character', key: '123_' },
    { how: 'extended by one character', key: '123_9A' },
    { how: 'last character changed', key: '123_A' },
  ]);
  fc.assert(
    fc.property(keys, (key) => {
      for (const { how, key: altered } of alteredKeys(key)) assert.notEqual(altered, key, how);
    }),
  );
});

test('the codes that reject a valid key used where it may not be: the two of the spec', () => {
  assert.deepEqual([...AUTH_REJECTION_CODES], ['invalid_api_key', 'insufficient_permissions']);
});
