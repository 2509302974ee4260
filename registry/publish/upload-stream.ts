// The upload's JSON ({"deployment", "version", "files": {name: base64}, "targetMoved", "checkedBy"}), read as it
// arrives: each file's base64 is decoded a piece at a time and handed to a sink (upload-files.ts
// writes it to disk), so a bundle of any size never sits whole in memory. Everything but a file's
// content is small — names, labels, the flag, a member the registry does not know — and is kept
// (up to SMALL_VALUE bytes) and read with JSON.parse, so the text is held to JSON's own grammar.
// The result is what JSON.parse of the whole text gives (a property test holds them together), but
// for a name given twice, which is refused.
import { Base64Decoder, NotBase64 } from './base64-stream.ts';
import { UploadError, deploymentProblem, versionProblem } from './upload.ts';

/** Where a file's bytes go: opened by name, written a piece at a time, closed at its end. */
export interface FileSink {
  open(name: string): void;
  write(bytes: Buffer): void;
  close(): void;
}

export interface UploadHead {
  deployment: string;
  version: string;
  targetMoved: boolean;
  /** `registry recheck`: the run is the registry's own (an operator's token and key only). */
  checkedByRegistry: boolean;
}

/** The longest JSON value other than a file's content (a name, a label, a member not known). */
export const SMALL_VALUE = 64 * 1024;

const NOT_JSON =
  'The body is not JSON (cut short?): send {"deployment", "version", "files": {name: base64}} as registry publish does.';
const isSpace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

type State =
  | 'start'
  | 'key-or-end'
  | 'key'
  | 'colon'
  | 'value'
  | 'after-value'
  | 'files-key-or-end'
  | 'files-key'
  | 'files-colon'
  | 'files-value'
  | 'content'
  | 'files-after'
  | 'done';

/** A small value's bytes, kept until it ends: a string, a number, a literal, an array or an object. */
class SmallValue {
  private readonly parts: Buffer[] = [];
  private size = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;

  /** Takes bytes from `at`; returns where the value ended (past its last byte), or -1 for more. */
  take(chunk: Buffer, at: number): number {
    let index = at;
    if (this.size === 0 && !this.inString && this.depth === 0)
      this.scalar = !'"[{'.includes(String.fromCharCode(chunk[at] ?? 0));
    for (; index < chunk.length; index++) {
      const byte = chunk[index] ?? 0;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          this.inString = false;
          if (this.depth === 0) return this.keep(chunk, at, index + 1);
        }
      } else if (this.scalar) {
        // A number or a literal ends at what follows it, which is not part of it.
        if (isSpace(byte) || byte === 0x2c || byte === 0x7d || byte === 0x5d)
          return this.keep(chunk, at, index);
      } else if (byte === QUOTE) this.inString = true;
      else if (byte === 0x7b || byte === 0x5b) this.depth++;
      else if (byte === 0x7d || byte === 0x5d) {
        this.depth--;
        if (this.depth === 0) return this.keep(chunk, at, index + 1);
      }
    }
    this.keep(chunk, at, index);
    return -1;
  }

  private keep(chunk: Buffer, from: number, to: number): number {
    this.size += to - from;
    if (this.size > SMALL_VALUE)
      throw new UploadError(
        `A member of the body other than a file's content is longer than ${SMALL_VALUE} bytes.`,
      );
    this.parts.push(chunk.subarray(from, to));
    return to;
  }

  /** The value, read by JSON.parse. */
  value(): unknown {
    try {
      return JSON.parse(Buffer.concat(this.parts).toString('utf8'));
    } catch {
      throw new UploadError(NOT_JSON);
    }
  }
}

export class UploadStreamParser {
  private state: State = 'start';
  private small: SmallValue | undefined;
  private key = '';
  private readonly members = new Map<string, unknown>();
  private readonly names = new Set<string>();
  private filesSeen = false;
  private file: { name: string; decoder: Base64Decoder } | undefined;
  /** An escape of a file's content read so far (a backslash and what follows it), or ''. */
  private escapeText = '';

  constructor(private readonly sink: FileSink) {}

  /** Reads the next piece of the body; throws UploadError at the first thing that cannot be. */
  write(chunk: Buffer): void {
    let index = 0;
    while (index < chunk.length) {
      if (this.small) {
        const ended = this.small.take(chunk, index);
        if (ended === -1) return;
        index = ended;
        this.smallEnded(this.small.value());
        continue;
      }
      if (this.state === 'content') {
        index = this.content(chunk, index);
        continue;
      }
      const byte = chunk[index] ?? 0;
      index++;
      if (isSpace(byte)) continue;
      // A small value starts with the byte just read: it is read again, as the value's first.
      if (this.structure(byte)) index--;
    }
  }

  /** The body has ended: its deployment, version and flag, checked. */
  end(): UploadHead {
    // The body ends with its object's "}": a value or a file still open means it was cut short.
    if (this.small || this.state !== 'done') throw new UploadError(NOT_JSON);
    const deployment = this.members.get('deployment');
    const version = this.members.get('version');
    const targetMoved = this.members.get('targetMoved');
    if (targetMoved !== undefined && typeof targetMoved !== 'boolean')
      throw new UploadError('"targetMoved" must be true or false.');
    const checkedBy = this.members.get('checkedBy');
    if (checkedBy !== undefined && checkedBy !== 'registry')
      throw new UploadError('"checkedBy" is "registry" (registry recheck) or absent (a publisher\'s run).');
    const problem = deploymentProblem(deployment) ?? versionProblem(version);
    if (problem) throw new UploadError(problem);
    if (!this.filesSeen)
      throw new UploadError(
        '"files" must be an object of the bundle\'s files: {"SHA256SUMS": "<base64>", …}.',
      );
    return {
      deployment: deployment as string,
      version: version as string,
      targetMoved: targetMoved === true,
      checkedByRegistry: checkedBy === 'registry',
    };
  }

  /** Reads a byte of the object's structure; true when it starts a small value (read again). */
  private structure(byte: number): boolean {
    const expect = (ok: boolean): void => {
      if (!ok) throw new UploadError(NOT_JSON);
    };
    switch (this.state) {
      case 'start':
        expect(byte === 0x7b);
        this.state = 'key-or-end';
        return false;
      case 'key-or-end':
      case 'key':
        if (byte === 0x7d && this.state === 'key-or-end') return this.moveTo('done');
        expect(byte === QUOTE);
        return this.startSmall();
      case 'colon':
      case 'files-colon':
        expect(byte === 0x3a);
        return this.moveTo(this.state === 'colon' ? 'value' : 'files-value');
      case 'value':
        if (this.key === 'files' && byte === 0x7b) {
          this.filesSeen = true;
          return this.moveTo('files-key-or-end');
        }
        return this.startSmall();
      case 'after-value':
      case 'files-after':
        expect(byte === 0x2c || byte === 0x7d);
        if (this.state === 'after-value') return this.moveTo(byte === 0x2c ? 'key' : 'done');
        return this.moveTo(byte === 0x2c ? 'files-key' : 'after-value');
      case 'files-key-or-end':
      case 'files-key':
        if (byte === 0x7d && this.state === 'files-key-or-end') return this.moveTo('after-value');
        expect(byte === QUOTE);
        return this.startSmall();
      case 'files-value':
        if (byte !== QUOTE)
          throw new UploadError(`"files"."${this.key}" is not base64 (the file's bytes, encoded).`);
        this.sink.open(this.key);
        this.file = { name: this.key, decoder: new Base64Decoder() };
        return this.moveTo('content');
      default:
        throw new UploadError(NOT_JSON);
    }
  }

  private moveTo(state: State): false {
    this.state = state;
    return false;
  }

  private startSmall(): true {
    this.small = new SmallValue();
    return true;
  }

  private smallEnded(value: unknown): void {
    this.small = undefined;
    switch (this.state) {
      case 'key-or-end':
      case 'key':
        this.key = String(value);
        // Which of two members of one name counts is where parsers differ (JSON.parse: the last):
        // an ambiguous body is refused rather than read one way here and another way elsewhere.
        if (this.names.has(this.key))
          throw new UploadError(`The body names "${this.key.slice(0, 40)}" twice: send each member once.`);
        this.names.add(this.key);
        this.state = 'colon';
        return;
      case 'files-key-or-end':
      case 'files-key':
        this.key = String(value);
        this.state = 'files-colon';
        return;
      case 'value':
        this.members.set(this.key, value);
        this.state = 'after-value';
        return;
      default:
        throw new UploadError(NOT_JSON);
    }
  }

  /** A file's base64, up to its closing quote; returns where reading stopped. */
  private content(chunk: Buffer, at: number): number {
    const file = this.file;
    if (!file) throw new Error('unreachable: content without a file');
    const notBase64 = (): UploadError =>
      new UploadError(`"files"."${file.name}" is not base64 (the file's bytes, encoded).`);
    if (this.escapeText !== '') return this.continueEscape(chunk, at, notBase64);
    const quote = chunk.indexOf(QUOTE, at);
    const backslash = chunk.indexOf(BACKSLASH, at);
    if (backslash !== -1 && (quote === -1 || backslash < quote)) {
      this.decode(chunk.toString('latin1', at, backslash), notBase64);
      this.escapeText = '\\';
      return backslash + 1;
    }
    const end = quote === -1 ? chunk.length : quote;
    this.decode(chunk.toString('latin1', at, end), notBase64);
    if (quote === -1) return end;
    try {
      const last = file.decoder.end();
      if (last.length > 0) this.sink.write(last);
    } catch (error) {
      if (error instanceof NotBase64) throw notBase64();
      throw error;
    }
    this.sink.close();
    this.file = undefined;
    this.state = 'files-after';
    return quote + 1;
  }

  /**
   * An escape inside a file's base64, a byte at a time (it may straddle two pieces): JSON lets a
   * writer spell "/" as \/ and any character as \uXXXX; what it spells must be base64 as well.
   */
  private continueEscape(chunk: Buffer, at: number, notBase64: () => UploadError): number {
    this.escapeText += String.fromCharCode(chunk[at] ?? 0);
    const text = this.escapeText;
    if (text[1] !== 'u') {
      this.escapeText = '';
      if (text[1] !== '/') throw notBase64();
      this.decode('/', notBase64);
    } else if (text.length === 6) {
      this.escapeText = '';
      if (!/^[0-9A-Fa-f]{4}$/.test(text.slice(2))) throw notBase64();
      this.decode(String.fromCharCode(parseInt(text.slice(2), 16)), notBase64);
    }
    return at + 1;
  }

  private decode(text: string, notBase64: () => UploadError): void {
    try {
      const bytes = this.file?.decoder.write(text);
      if (bytes && bytes.length > 0) this.sink.write(bytes);
    } catch (error) {
      if (error instanceof NotBase64) throw notBase64();
      throw error;
    }
  }
}
