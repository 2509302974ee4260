// A request Node's HTTP/2 client will not make — two fields of one name, a header block split over
// CONTINUATION frames — made with its help all the same: the client opens the connection, sends its
// preface and settings, and reads and decodes the answer (HPACK, flow control, DATA) as usual, while
// this stream, standing between it and the TLS socket, puts the header block written by hand
// (h2-frames.ts) on the wire in place of the client's own HEADERS frame for the first request.
// The hand-written block adds nothing to the server's HPACK table, so the client's view of the
// connection stays right for everything after that frame on a one-request connection.
import { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { CLIENT_PREFACE, FRAME_FLAG, FRAME_TYPE, readFrames } from './h2-frames.ts';

/** The client's first request is on stream 1 (RFC 9113 §5.1.1: client streams are odd, from 1). */
const FIRST_STREAM = 1;

export class HeaderBlockSwap extends Duplex {
  readonly #socket: TLSSocket;
  readonly #replacement: (endStream: boolean) => Buffer[];
  #pending: Buffer = Buffer.alloc(0);
  #prefacePassed = false;
  #swapped = false;

  /** @param replacement the frames to send instead, given whether the client's ended the stream. */
  constructor(socket: TLSSocket, replacement: (endStream: boolean) => Buffer[]) {
    super();
    this.#socket = socket;
    this.#replacement = replacement;
    socket.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (error: Error) => this.destroy(error));
    socket.on('close', () => this.destroy());
  }

  /** The TLS socket beneath (its ALPN result, its certificate). */
  get socket(): TLSSocket {
    return this.#socket;
  }

  override _read(): void {
    this.#socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.#swapped) {
      this.#socket.write(chunk, done);
      return;
    }
    this.#pending = Buffer.concat([this.#pending, chunk]);
    const out: Buffer[] = [];
    if (!this.#prefacePassed) {
      if (this.#pending.length < CLIENT_PREFACE.length) return done();
      out.push(this.#pending.subarray(0, CLIENT_PREFACE.length));
      this.#pending = this.#pending.subarray(CLIENT_PREFACE.length);
      this.#prefacePassed = true;
    }
    const { frames, rest } = readFrames(this.#pending);
    let offset = 0;
    for (const frame of frames) {
      const size = 9 + frame.payload.length;
      const bytes = this.#pending.subarray(offset, offset + size);
      offset += size;
      if (!this.#swapped && frame.type === FRAME_TYPE.HEADERS && frame.streamId === FIRST_STREAM) {
        // The client's header block is small enough for one frame (END_HEADERS): nothing follows it.
        out.push(...this.#replacement((frame.flags & FRAME_FLAG.END_STREAM) !== 0));
        this.#swapped = true;
      } else out.push(bytes);
    }
    this.#pending = this.#swapped ? Buffer.alloc(0) : rest;
    if (this.#swapped) out.push(rest);
    this.#socket.write(Buffer.concat(out), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.#socket.end(done);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.#socket.destroy();
    done(error);
  }
}
