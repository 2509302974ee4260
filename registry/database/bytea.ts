// How the embedded database's bytea values (a bundle's files) cross into PGlite and back. PGlite's
// own codec sends a bytea parameter as hex text made a byte at a time (a string per byte, joined),
// then counts the text's UTF-8 length a character at a time, and reads a result back with a
// parseInt per pair: about a fifth of a publish's CPU. Here a bytea parameter goes as its bytes
// (PGlite's bind sends a Uint8Array in PostgreSQL's binary format, which for bytea is the bytes
// themselves), and a result is read with Buffer's hex (native). A bytea[] parameter (whose text
// PGlite builds from each element's) keeps the hex text form. Results are PostgreSQL's hex form
// (`\x` then two hex digits per byte): bytea_output = hex, the default, which nothing here changes.

/** PostgreSQL's type ids of bytea and bytea[]. */
export const BYTEA = 17;
export const BYTEA_ARRAY = 1001;

const bytesOf = (value: unknown): Buffer => {
  // PGlite's own message for anything else, so an error reads the same as before.
  if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
};

/**
 * A bytea parameter as PostgreSQL's binary form: its bytes. PGlite's serializer type says text;
 * its bind sends any ArrayBuffer view as a binary parameter, which is what is wanted here.
 */
export const byteaParameter = (value: unknown): string => bytesOf(value) as unknown as string;

/** A bytea value as PostgreSQL's hex text, as PGlite's own serializer writes it. */
export const byteaToText = (value: unknown): string => `\\x${bytesOf(value).toString('hex')}`;

/** A bytea[] parameter as an array's text, each element in hex (quoted, its backslash escaped). */
export function byteaArrayToText(value: unknown): string {
  if (!Array.isArray(value)) throw new Error('Invalid input for bytea[] type');
  return `{${value.map((item: unknown) => (item === null || item === undefined ? 'NULL' : `"\\${byteaToText(item)}"`)).join(',')}}`;
}

/** A bytea result, from PostgreSQL's hex text. */
export function byteaFromText(text: string): Buffer {
  if (!text.startsWith('\\x'))
    throw new Error('a bytea value not in hex form: the database must keep bytea_output = hex');
  return Buffer.from(text.slice(2), 'hex');
}

/** What PGlite is given at creation in place of its own. */
export const BYTEA_CODEC = {
  serializers: { [BYTEA]: byteaParameter },
  parsers: { [BYTEA]: byteaFromText },
};

/**
 * PGlite makes each array type's serializer from its element's once it has started, which would
 * hand bytea[]'s elements to the binary serializer above: set after start, bytea[] keeps text.
 */
export function keepByteaArraysText(db: { serializers: Record<number, (value: unknown) => string> }): void {
  db.serializers[BYTEA_ARRAY] = byteaArrayToText;
}
