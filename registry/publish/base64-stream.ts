// A file's base64, decoded as it arrives, a piece at a time, so that an upload's files never sit
// whole in memory. It accepts exactly what canonicalBase64 (the whole-string check) accepts: one of
// the three encodings of the bytes — base64 with its padding, base64url without, base64url with —
// and nothing else (no mixed alphabets, no bits set past the last byte), so a streamed upload and a
// whole one are judged alike.

/** A character that no base64 alphabet has, or a `=` with something after it. */
export class NotBase64 extends Error {
  constructor() {
    super('not base64');
    this.name = 'NotBase64';
  }
}

const OUTSIDE = /[^A-Za-z0-9+/\-_=]/;
const STANDARD = /[+/]/;
const URL_SAFE = /[-_]/;
/** The value of each base64 character (either alphabet), for the check of the last one's bits. */
const VALUE = new Map(
  [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'].map((c, i) => [c, i]),
);
VALUE.set('+', 62).set('-', 62).set('/', 63).set('_', 63);

export class Base64Decoder {
  /** Characters of an unfinished group of four, carried to the next piece. */
  private pending = '';
  private padding = 0;
  private alphabet: 'either' | 'standard' | 'url' = 'either';

  /** Decodes a piece of the text; throws NotBase64 at the first character that cannot belong. */
  write(text: string): Buffer {
    if (text.length === 0) return Buffer.alloc(0);
    if (OUTSIDE.test(text)) throw new NotBase64();
    if (this.padding > 0 && text.replace(/=+$/, '').length > 0) throw new NotBase64();
    const firstPad = text.indexOf('=');
    const data = firstPad === -1 ? text : text.slice(0, firstPad);
    const pad = firstPad === -1 ? '' : text.slice(firstPad);
    if (/[^=]/.test(pad)) throw new NotBase64();
    this.padding += pad.length;
    if (this.padding > 2) throw new NotBase64();
    this.noteAlphabet(data);
    const all = this.pending + data;
    const whole = all.length - (all.length % 4);
    this.pending = all.slice(whole);
    return whole === 0 ? Buffer.alloc(0) : Buffer.from(all.slice(0, whole), 'base64');
  }

  /** The last bytes, once the text has ended; throws NotBase64 when the text is not canonical. */
  end(): Buffer {
    const rest = this.pending;
    if (rest.length === 1) throw new NotBase64();
    if (this.padding > 0 && rest.length + this.padding !== 4) throw new NotBase64();
    // Without padding, a short last group is base64url's form only.
    if (this.padding === 0 && rest.length > 0 && this.alphabet === 'standard') throw new NotBase64();
    if (rest.length > 0) {
      // The bits past the last byte are zero in an encoding of the bytes.
      const last = VALUE.get(rest[rest.length - 1] ?? '') ?? 0;
      if ((rest.length === 2 && (last & 0xf) !== 0) || (rest.length === 3 && (last & 0x3) !== 0))
        throw new NotBase64();
    }
    this.pending = '';
    return rest.length === 0 ? Buffer.alloc(0) : Buffer.from(rest, 'base64');
  }

  private noteAlphabet(data: string): void {
    const standard = STANDARD.test(data);
    const url = URL_SAFE.test(data);
    if ((standard && (url || this.alphabet === 'url')) || (url && this.alphabet === 'standard'))
      throw new NotBase64();
    if (standard) this.alphabet = 'standard';
    else if (url) this.alphabet = 'url';
  }
}
