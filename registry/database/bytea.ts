// How the embedded database's bytea values (a bundle's files) cross into PGlite and back. PGlite
// sends every parameter and reads every result as text, and its own bytea codec makes that text a
// byte at a time (a string per byte, joined; parseInt per pair back): about a fifth of a publish's
// CPU went there. Node's Buffer writes and reads the same hex text in native code. The text is
// PostgreSQL's own hex form (`\x` then two lower-case hex digits per byte), the only form the
// database answers in (bytea_output = hex, the default, which nothing here changes).

/** PostgreSQL's type id of bytea. */
export const BYTEA = 17;

/** A value for a bytea parameter, as PGlite's own serializer would write it. */
export function byteaToText(value: unknown): string {
  // PGlite's own message for anything else, so an error reads the same as before.
  if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
  return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
}

/** A bytea result, from PostgreSQL's hex text. */
export function byteaFromText(text: string): Buffer {
  if (!text.startsWith('\\x'))
    throw new Error('a bytea value not in hex form: the database must keep bytea_output = hex');
  return Buffer.from(text.slice(2), 'hex');
}

/** The options that give PGlite these in place of its own. */
export const BYTEA_CODEC = {
  serializers: { [BYTEA]: byteaToText },
  parsers: { [BYTEA]: byteaFromText },
};
