// Where a streamed upload's files go: each into the upload's own directory as its bytes arrive,
// hashed (SHA-256) and searched for a secret on the way, the bundle's size counted against the
// registry's bound — so nothing is read twice and nothing is held but the piece in hand.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { FileSink } from './upload-stream.ts';
import { FILE_NAME, MAX_FILES, UploadError } from './upload.ts';

/** A file of the upload, written whole: its name, size and SHA-256. */
export interface WrittenFile {
  name: string;
  size: number;
  sha256: string;
}

const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
/** Any registry token, anyone's: the files are served as published, so none may hold one. */
const ANY_TOKEN = /tacr_[A-Za-z0-9_-]{43}/;
/**
 * The end of one piece searched again with the next, so a secret cut by the boundary is found: far
 * longer than a token (48 characters) or a PEM header (under 40).
 */
const OVERLAP = 1024;

/** The bundle is larger than the registry takes: the caller answers 413. */
export class BundleTooLarge extends Error {
  constructor() {
    super('the bundle is larger than the bound');
    this.name = 'BundleTooLarge';
  }
}

export class DirectorySink implements FileSink {
  private readonly written = new Map<string, WrittenFile>();
  private open_: { name: string; fd: number; size: number; hash: Hash; tail: string } | undefined;
  private total = 0;
  /** The first file found holding a secret, if any. */
  secretIn: string | undefined;

  constructor(
    readonly directory: string,
    private readonly maxBytes: number,
    /** The token the upload was sent with, searched for as well. */
    private readonly presentedToken: string,
  ) {}

  open(name: string): void {
    if (!FILE_NAME.test(name))
      throw new UploadError(
        `"files" names ${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)}, which is not a file name of a bundle (no paths, no dot files).`,
      );
    if (this.written.size >= MAX_FILES)
      throw new UploadError(`"files" names more than ${MAX_FILES} files; a bundle has at most ${MAX_FILES}.`);
    // Which of two contents counts is where JSON parsers differ: a file is sent once.
    if (this.written.has(name)) throw new UploadError(`"files" names ${name} twice: send each file once.`);
    const fd = openSync(join(this.directory, name), 'w', 0o600);
    this.open_ = { name, fd, size: 0, hash: createHash('sha256'), tail: '' };
  }

  write(bytes: Buffer): void {
    const file = this.open_;
    if (!file) throw new Error('unreachable: a write with no file open');
    this.total += bytes.length;
    if (this.total > this.maxBytes) throw new BundleTooLarge();
    const text = file.tail + bytes.toString('latin1');
    if (
      this.secretIn === undefined &&
      (PRIVATE_KEY.test(text) ||
        ANY_TOKEN.test(text) ||
        (this.presentedToken !== '' && text.includes(this.presentedToken)))
    )
      this.secretIn = file.name;
    file.tail = text.slice(-OVERLAP);
    for (let offset = 0; offset < bytes.length;)
      offset += writeSync(file.fd, bytes, offset, bytes.length - offset);
    file.hash.update(bytes);
    file.size += bytes.length;
  }

  close(): void {
    const file = this.open_;
    if (!file) throw new Error('unreachable: a close with no file open');
    closeSync(file.fd);
    this.open_ = undefined;
    this.written.set(file.name, { name: file.name, size: file.size, sha256: file.hash.digest('hex') });
  }

  /** Closes a file left open by an upload that ended in the middle of it. */
  abandon(): void {
    if (this.open_) closeSync(this.open_.fd);
    this.open_ = undefined;
  }

  /** The files written whole, in the order they came. */
  files(): WrittenFile[] {
    return [...this.written.values()];
  }

  get size(): number {
    return this.total;
  }
}
