// A TLS connection that speaks HTTP/2 frame by frame (frames from conformance/requests/h2-frames.ts),
// for the attacks no HTTP/2 client library makes: thousands of streams reset as they open, header
// blocks that never end, more streams than the server allows. What the server sends back is
// tallied — frames by type, RST_STREAM codes, GOAWAY frames, the streams it answered — and the
// frames themselves are not kept, so that a long attack does not fill the test's own memory.
import { connect, type TLSSocket } from 'node:tls';
import {
  CLIENT_PREFACE,
  FRAME_FLAG,
  FRAME_TYPE,
  emptySettings,
  frame,
  readFrames,
  type Frame,
} from '../../conformance/requests/h2-frames.ts';

/** SETTINGS parameters (RFC 9113 §6.5.2) the attacks set. */
export const SETTING = { INITIAL_WINDOW_SIZE: 0x4 } as const;

const LOOPBACK = '127.0.0.1';

export interface Goaway {
  lastStreamId: number;
  errorCode: number;
}

export interface RawH2Options {
  port: number;
  /** PEM of the only CA trusted: certificate verification stays on. */
  ca: string;
  servername: string;
  /** The client's SETTINGS parameters; none by default. */
  settings?: ReadonlyArray<readonly [number, number]>;
  /**
   * Whether the server's SETTINGS are acknowledged (default true). Until they are, the server
   * may not hold the client to them (RFC 9113 §6.5.3), which changes how it refuses streams.
   */
  acknowledgeSettings?: boolean;
}

export class RawH2Connection {
  readonly #socket: TLSSocket;
  #pending: Buffer = Buffer.alloc(0);
  #closed = false;
  readonly #wakers = new Set<() => void>();
  /** Frames received, by type. */
  readonly received = new Map<number, number>();
  /** RST_STREAM frames received, by error code. */
  readonly resets = new Map<number, number>();
  /** The code of each stream's first RST_STREAM: a stream reset twice is one stream reset. */
  readonly firstResets = new Map<number, number>();
  /** Streams the server sent a HEADERS frame (an answer) on. */
  readonly answered = new Set<number>();
  /** The most streams answered and not yet reset at any one time, in the order frames arrived. */
  mostHeldAtOnce = 0;
  #held = 0;
  /** The DATA the server sent, by stream (the reference's answers are a few KiB). */
  readonly bodies = new Map<number, Buffer>();
  readonly goaways: Goaway[] = [];
  /** Whether the server has acknowledged the client's SETTINGS. */
  settingsAcknowledged = false;

  private constructor(socket: TLSSocket, acknowledgeSettings: boolean) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      const { frames, rest } = readFrames(Buffer.concat([this.#pending, chunk]));
      this.#pending = Buffer.from(rest);
      for (const one of frames) this.#take(one, acknowledgeSettings);
      this.#wake();
    });
    // The server may reset the connection in the middle of an attack; that is what is judged.
    socket.on('error', () => {});
    socket.on('close', () => {
      this.#closed = true;
      this.#wake();
    });
  }

  static open(options: RawH2Options): Promise<RawH2Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect({
        host: LOOPBACK,
        port: options.port,
        ca: options.ca,
        servername: options.servername,
        ALPNProtocols: ['h2'],
      });
      socket.once('error', reject);
      socket.once('secureConnect', () => {
        socket.off('error', reject);
        if (socket.alpnProtocol !== 'h2') {
          socket.destroy();
          reject(new Error(`the server chose ${String(socket.alpnProtocol)} by ALPN, not h2`));
          return;
        }
        const connection = new RawH2Connection(socket, options.acknowledgeSettings ?? true);
        socket.write(Buffer.concat([CLIENT_PREFACE, settingsFrame(options.settings ?? [])]));
        resolve(connection);
      });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** How many streams were reset, first, with `code` (however many RST_STREAM frames each got). */
  streamsResetWith(code: number): number {
    return [...this.firstResets.values()].filter((first) => first === code).length;
  }

  /** How many RST_STREAM frames carried `code`. */
  resetsWith(code: number): number {
    return this.resets.get(code) ?? 0;
  }

  /**
   * Writes `bytes`, waiting for the socket to drain if its buffer is full, so that an attack
   * goes at the speed the server reads. False if the connection is closed.
   */
  async write(bytes: Buffer): Promise<boolean> {
    if (this.#closed) return false;
    if (!this.#socket.write(bytes)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.#socket.off('drain', done);
          this.#socket.off('close', done);
          resolve();
        };
        this.#socket.once('drain', done);
        this.#socket.once('close', done);
      });
    }
    return !this.#closed;
  }

  /** Waits until `condition` holds, up to `timeoutMs`; whether it held. */
  async until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.#wakers.add(done);
      });
    }
    return true;
  }

  close(): void {
    this.#socket.destroy();
  }

  #take(received: Frame, acknowledgeSettings: boolean): void {
    this.received.set(received.type, (this.received.get(received.type) ?? 0) + 1);
    switch (received.type) {
      case FRAME_TYPE.HEADERS:
        if (!this.answered.has(received.streamId)) {
          this.answered.add(received.streamId);
          this.#held += 1;
          this.mostHeldAtOnce = Math.max(this.mostHeldAtOnce, this.#held);
        }
        break;
      case FRAME_TYPE.DATA:
        this.bodies.set(
          received.streamId,
          Buffer.concat([this.bodies.get(received.streamId) ?? Buffer.alloc(0), dataOf(received)]),
        );
        break;
      case FRAME_TYPE.RST_STREAM: {
        const code = received.payload.readUInt32BE(0);
        this.resets.set(code, (this.resets.get(code) ?? 0) + 1);
        if (!this.firstResets.has(received.streamId)) {
          this.firstResets.set(received.streamId, code);
          if (this.answered.has(received.streamId)) this.#held -= 1;
        }
        break;
      }
      case FRAME_TYPE.GOAWAY:
        this.goaways.push({
          lastStreamId: received.payload.readUInt32BE(0) & 0x7fffffff,
          errorCode: received.payload.readUInt32BE(4),
        });
        break;
      case FRAME_TYPE.SETTINGS:
        if (received.flags & FRAME_FLAG.ACK) this.settingsAcknowledged = true;
        else if (acknowledgeSettings) this.#socket.write(frame(FRAME_TYPE.SETTINGS, FRAME_FLAG.ACK, 0));
        break;
    }
  }

  #wake(): void {
    const wakers = [...this.#wakers];
    this.#wakers.clear();
    for (const wake of wakers) wake();
  }
}

/** The data of a DATA frame, without its padding (RFC 9113 §6.1). */
function dataOf(data: Frame): Buffer {
  if (!(data.flags & FRAME_FLAG.PADDED)) return data.payload;
  const padding = data.payload.readUInt8(0);
  return data.payload.subarray(1, data.payload.length - padding);
}

/** A SETTINGS frame with these parameters (RFC 9113 §6.5.1: 16-bit identifier, 32-bit value). */
function settingsFrame(parameters: ReadonlyArray<readonly [number, number]>): Buffer {
  if (parameters.length === 0) return emptySettings();
  const payload = Buffer.alloc(6 * parameters.length);
  parameters.forEach(([id, value], index) => {
    payload.writeUInt16BE(id, 6 * index);
    payload.writeUInt32BE(value, 6 * index + 2);
  });
  return frame(FRAME_TYPE.SETTINGS, 0, 0, payload);
}

/** A PING frame (RFC 9113 §6.7): activity that keeps a connection from being idle. */
export function ping(): Buffer {
  return frame(FRAME_TYPE.PING, 0, 0, Buffer.alloc(8));
}
