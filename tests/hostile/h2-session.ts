// HTTP/2 client sessions for the fuzz and the soak: node:http2's client, many streams at once on
// one connection, and — for the requests it refuses to make (two fields of one name, bytes a
// field may not hold, names in upper case) — the same client with every request's header block
// replaced on its way out by one written by hand (conformance/requests/h2-frames.ts). Node's
// client still reads the answers: HPACK decoding, flow control and stream states stay its own.
import {
  connect as connectHttp2,
  constants,
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2';
import {
  checkServerIdentity,
  connect as connectTls,
  type PeerCertificate,
  type SecureContext,
  type TLSSocket,
} from 'node:tls';
import { Duplex } from 'node:stream';
import {
  CLIENT_PREFACE,
  FRAME_FLAG,
  FRAME_TYPE,
  frame,
  headerBlock,
  headersFrames,
  readFrames,
} from '../../conformance/requests/h2-frames.ts';

const LOOPBACK = '127.0.0.1';
/** The largest frame a server accepts before it says otherwise (RFC 9113 §4.2). */
const DEFAULT_MAX_FRAME_SIZE = 16_384;
/** An answer longer than this is cut: the reference's answers are a few KiB. */
const MAX_BODY_BYTES = 1 << 20;
/**
 * A session idle longer than this is not reused: the server closes idle sessions after its
 * keep-alive time-out (5 s by default), and a stream opened as it closes would be refused.
 */
const IDLE_REUSE_LIMIT_MS = 2_000;

/** One field of a request, name and value as bytes (latin1), pseudo-header fields included. */
export type Field = readonly [string, string];

export type H2Outcome =
  | { kind: 'response'; status: number; headers: IncomingHttpHeaders; body: Buffer }
  /** The server reset the stream (RST_STREAM) with this error code, without a complete answer. */
  | { kind: 'reset'; code: number }
  /** The session failed or closed under the stream, or no answer came in time. */
  | { kind: 'failed'; error: string };

export interface H2SessionOptions {
  port: number;
  /** PEM of the only CA trusted: certificate verification stays on. */
  ca: string;
  /** A context made of `ca` once for many sessions (each would parse the CA again). */
  secureContext?: SecureContext;
  /** TLS SNI; undefined connects without one (as a client addressing an IP would). */
  servername: string | undefined;
  /** Host name the certificate is checked against instead of the SNI name. */
  verifyHostname?: string;
  /** Every request's header block written by hand (`request` takes any fields then). */
  handWritten: boolean;
}

export class H2Session {
  readonly #session: ClientHttp2Session;
  readonly #rewriter: HeaderBlockRewriter | undefined;
  #lastUsedMs = Date.now();
  #ended = false;
  /** Streams opened on this session so far. */
  opened = 0;
  /** Streams open now. */
  inFlight = 0;

  private constructor(session: ClientHttp2Session, rewriter: HeaderBlockRewriter | undefined) {
    this.#session = session;
    this.#rewriter = rewriter;
    const ended = (): void => {
      this.#ended = true;
    };
    session.on('error', ended);
    session.on('goaway', ended);
    session.on('close', ended);
  }

  static async open(options: H2SessionOptions): Promise<H2Session> {
    const tls = {
      ...(options.secureContext ? { secureContext: options.secureContext } : { ca: options.ca }),
      ALPNProtocols: ['h2'],
      ...(options.servername === undefined ? {} : { servername: options.servername }),
      ...(options.verifyHostname === undefined
        ? {}
        : { checkServerIdentity: verifyAs(options.verifyHostname) }),
    };
    const authority = `https://${LOOPBACK}:${options.port}`;
    if (!options.handWritten) {
      const session = connectHttp2(authority, tls);
      await connected(session);
      return new H2Session(session, undefined);
    }
    const socket = connectTls({ host: LOOPBACK, port: options.port, ...tls });
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    const rewriter = new HeaderBlockRewriter(socket);
    const session = connectHttp2(authority, { createConnection: () => rewriter });
    await connected(session);
    return new H2Session(session, rewriter);
  }

  get handWritten(): boolean {
    return this.#rewriter !== undefined;
  }

  /** Whether another stream can be opened on this session. */
  get usable(): boolean {
    const fresh = this.inFlight > 0 || Date.now() - this.#lastUsedMs < IDLE_REUSE_LIMIT_MS;
    return fresh && !this.#ended && !this.#session.closed && !this.#session.destroyed;
  }

  /**
   * Sends one request without a body and waits for its answer, up to `timeoutMs`. `fields` are
   * sent in order, repeats kept, on a hand-written session; otherwise node's client sends them
   * (one field per name, names lower-cased).
   */
  request(fields: readonly Field[], timeoutMs: number): Promise<H2Outcome> {
    this.opened += 1;
    this.inFlight += 1;
    return new Promise<H2Outcome>((settle) => {
      let stream: ClientHttp2Stream;
      let settled = false;
      const finish = (outcome: H2Outcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        this.inFlight -= 1;
        this.#lastUsedMs = Date.now();
        settle(outcome);
      };
      const deadline = setTimeout(() => {
        finish({ kind: 'failed', error: `no answer within ${timeoutMs} ms` });
        stream.close(constants.NGHTTP2_CANCEL);
      }, timeoutMs);
      try {
        stream = this.#open(fields);
      } catch (error) {
        finish({ kind: 'failed', error: error instanceof Error ? error.message : String(error) });
        return;
      }
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let length = 0;
      stream.on('response', (answer: IncomingHttpHeaders) => {
        status = Number(answer[constants.HTTP2_HEADER_STATUS] ?? 0);
        headers = answer;
      });
      stream.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => finish({ kind: 'response', status, headers, body: Buffer.concat(chunks) }));
      // An error is followed by 'close', which says whether the server reset the stream.
      stream.on('error', () => {});
      stream.on('close', () => {
        const code = stream.rstCode ?? constants.NGHTTP2_NO_ERROR;
        if (code !== constants.NGHTTP2_NO_ERROR) finish({ kind: 'reset', code });
        else finish({ kind: 'failed', error: `stream closed without a complete answer (code ${code})` });
      });
    });
  }

  close(): void {
    this.#session.destroy();
  }

  #open(fields: readonly Field[]): ClientHttp2Stream {
    if (!this.#rewriter) return this.#session.request(asHeaders(fields), { endStream: true });
    // Node's client needs to know a HEAD request: its answer has a Content-Length and no body.
    const method = fields.find(([name]) => name === ':method')?.[1] === 'HEAD' ? 'HEAD' : 'GET';
    const stream = this.#session.request({ ':method': method, ':path': '/' }, { endStream: true });
    if (stream.id === undefined) throw new Error('the session had no stream id to give');
    this.#rewriter.replace(stream.id, headerBlock(fields));
    return stream;
  }
}

/** Node's client's form of `fields`: one value per name; refuses repeats rather than merge them. */
function asHeaders(fields: readonly Field[]): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of fields) {
    if (name in headers) throw new Error(`two ${name} fields need a hand-written header block`);
    headers[name] = value;
  }
  return headers;
}

function connected(session: ClientHttp2Session): Promise<void> {
  return new Promise((resolve, reject) => {
    session.once('connect', () => {
      session.off('error', reject);
      resolve();
    });
    session.once('error', reject);
  });
}

function verifyAs(hostname: string) {
  return (_servername: string, certificate: PeerCertificate) => checkServerIdentity(hostname, certificate);
}

/**
 * Between node's client and the TLS socket: passes every frame through, but a HEADERS frame's
 * header block is replaced by the one registered for its stream (split into CONTINUATION frames
 * when it is larger than a frame may be). The client's own HPACK encoder never reaches the server,
 * so the two HPACK tables cannot disagree: the hand-written blocks use literals without indexing.
 */
class HeaderBlockRewriter extends Duplex {
  readonly #socket: TLSSocket;
  readonly #blocks = new Map<number, Buffer>();
  #pending: Buffer = Buffer.alloc(0);
  #prefaceLeft = CLIENT_PREFACE.length;

  constructor(socket: TLSSocket) {
    super();
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (error: Error) => this.destroy(error));
    socket.on('close', () => this.destroy());
  }

  replace(streamId: number, block: Buffer): void {
    this.#blocks.set(streamId, block);
  }

  override _read(): void {
    this.#socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    let bytes = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const out: Buffer[] = [];
    if (this.#prefaceLeft > 0) {
      const preface = bytes.subarray(0, this.#prefaceLeft);
      out.push(preface);
      this.#prefaceLeft -= preface.length;
      bytes = bytes.subarray(preface.length);
    }
    const { frames, rest } = readFrames(bytes);
    this.#pending = Buffer.from(rest);
    for (const one of frames) {
      if (one.type === FRAME_TYPE.CONTINUATION) {
        done(new Error('the client split a placeholder header block; it must fit one frame'));
        return;
      }
      if (one.type !== FRAME_TYPE.HEADERS) {
        out.push(frame(one.type, one.flags, one.streamId, one.payload));
        continue;
      }
      const block = this.#blocks.get(one.streamId);
      if (!block) {
        done(new Error(`no header block for stream ${one.streamId}`));
        return;
      }
      this.#blocks.delete(one.streamId);
      const endStream = (one.flags & FRAME_FLAG.END_STREAM) !== 0;
      out.push(
        ...headersFrames(one.streamId, block, endStream, Math.ceil(block.length / DEFAULT_MAX_FRAME_SIZE)),
      );
    }
    if (this.#socket.write(Buffer.concat(out))) done();
    else this.#socket.once('drain', () => done());
  }

  override _final(done: (error?: Error | null) => void): void {
    this.#socket.end();
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.#socket.destroy();
    done(error);
  }
}
