// The answer to a plain-HTTP request that a server switched to HTTP/2 (`101 Switching Protocols`,
// `Upgrade: h2c`, RFC 7540 §3.2): the request becomes stream 1 of the new connection, and its
// answer comes over HTTP/2 on that stream. A switch alone serves nothing: what follows it is the
// answer to judge (an error status with no data is a rejection). Node's HTTP/2 client has no
// upgrade of its own, so it is handed the switched socket through this stream, which lets the
// client's preface and settings through, drops the HEADERS frame of its request on stream 1 (the
// server already has that request), and holds the server's frames until then: the client then
// reads and decodes the server's answer on stream 1 (HPACK, flow control, DATA) as its own.
import { connect, constants, type IncomingHttpHeaders } from 'node:http2';
import { Duplex } from 'node:stream';
import { CLIENT_PREFACE, FRAME_TYPE, readFrames } from './h2-frames.ts';
import { readAnswer } from './exchange.ts';

/** The answer read over HTTP/2 after the switch, or why none came. */
export type UpgradedAnswer =
  { status: number; headers: Record<string, string>; bodyText: string } | { error: string };

/** The upgraded request is stream 1 (RFC 7540 §3.2); the client's own first request is stream 1 too. */
const UPGRADED_STREAM = 1;

class UpgradedConnection extends Duplex {
  readonly #socket: Duplex;
  #outgoing: Buffer = Buffer.alloc(0);
  #prefacePassed = false;
  #requestDropped = false;
  #held: Buffer[] = [];
  #ended = false;

  constructor(socket: Duplex, head: Buffer) {
    super();
    this.#socket = socket;
    if (head.length > 0) this.#held.push(head);
    socket.on('data', (chunk: Buffer) => this.#incoming(chunk));
    socket.on('end', () => {
      this.#ended = true;
      if (this.#requestDropped) this.push(null);
    });
    socket.on('error', (error: Error) => this.destroy(error));
    socket.on('close', () => this.destroy());
  }

  #incoming(chunk: Buffer): void {
    if (!this.#requestDropped) this.#held.push(chunk);
    else if (!this.push(chunk)) this.#socket.pause();
  }

  /** Once the client's own request on stream 1 is dropped: what the server sent meanwhile, and its end. */
  #release(): void {
    for (const chunk of this.#held.splice(0)) this.push(chunk);
    if (this.#ended) this.push(null);
  }

  override _read(): void {
    this.#socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.#requestDropped) {
      this.#socket.write(chunk, done);
      return;
    }
    this.#outgoing = Buffer.concat([this.#outgoing, chunk]);
    const out: Buffer[] = [];
    if (!this.#prefacePassed) {
      if (this.#outgoing.length < CLIENT_PREFACE.length) return done();
      out.push(this.#outgoing.subarray(0, CLIENT_PREFACE.length));
      this.#outgoing = this.#outgoing.subarray(CLIENT_PREFACE.length);
      this.#prefacePassed = true;
    }
    const { frames, rest } = readFrames(this.#outgoing);
    let offset = 0;
    for (const frame of frames) {
      const size = 9 + frame.payload.length;
      const bytes = this.#outgoing.subarray(offset, offset + size);
      offset += size;
      const ownRequest = frame.type === FRAME_TYPE.HEADERS && frame.streamId === UPGRADED_STREAM;
      if (ownRequest) this.#requestDropped = true;
      else out.push(bytes);
    }
    this.#outgoing = rest;
    if (this.#requestDropped) {
      out.push(rest);
      this.#outgoing = Buffer.alloc(0);
    }
    this.#socket.write(Buffer.concat(out), done);
    if (this.#requestDropped) this.#release();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.#socket.end(done);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.#socket.destroy();
    done(error);
  }
}

/**
 * Reads the answer to the switched request. `head` is what the server sent after the `101` with
 * it (Node's `upgrade` event); the wait is bounded by `timeoutMs`.
 */
export function readUpgradedAnswer(
  socket: Duplex,
  head: Buffer,
  url: URL,
  method: string,
  timeoutMs: number,
  maxBodyBytes: number,
): Promise<UpgradedAnswer> {
  return new Promise((settle) => {
    const connection = new UpgradedConnection(socket, head);
    const session = connect(url.origin, { createConnection: () => connection });
    let settled = false;
    const finish = (answer: UpgradedAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      session.destroy();
      settle(answer);
    };
    const deadline = setTimeout(
      () => finish({ error: 'timed out waiting for the answer after the switch' }),
      timeoutMs,
    );
    const failed = (error: NodeJS.ErrnoException): void =>
      finish({ error: error.code ? `${error.code}: ${error.message}` : error.message });
    session.on('error', failed);
    // The request as the server has it; its HEADERS frame never leaves (see above).
    const stream = session.request(
      {
        [constants.HTTP2_HEADER_METHOD]: method,
        [constants.HTTP2_HEADER_PATH]: `${url.pathname}${url.search}`,
        [constants.HTTP2_HEADER_SCHEME]: 'http',
        [constants.HTTP2_HEADER_AUTHORITY]: url.host,
      },
      { endStream: true },
    );
    stream.on('error', failed);
    let status = 0;
    let headers: Record<string, string> = {};
    stream.on('response', (answer: IncomingHttpHeaders) => {
      status = Number(answer[constants.HTTP2_HEADER_STATUS] ?? 0);
      headers = fieldsOf(answer);
    });
    readAnswer(stream, maxBodyBytes, (bodyText) =>
      finish(status === 0 ? { error: 'the stream ended without an answer' } : { status, headers, bodyText }),
    );
  });
}

function fieldsOf(answer: IncomingHttpHeaders): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer)) {
    if (name.startsWith(':') || value === undefined) continue;
    fields[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return fields;
}
