// A TLS connection to the reference server that writes request bytes exactly as given — control
// bytes, bare CR, duplicate or malformed headers, which every HTTP client refuses to send — and
// reads the answers one at a time, so that thousands of fuzz cases can share a few keep-alive
// connections instead of paying a TLS handshake each.
import {
  checkServerIdentity,
  connect,
  createSecureContext,
  type PeerCertificate,
  type SecureContext,
  type TLSSocket,
} from 'node:tls';

export interface RawResponse {
  status: number;
  /** Header values by lowercased name, repeats kept. */
  headers: ReadonlyMap<string, readonly string[]>;
  /** Status line and header block as received (latin1), for searching what the server echoed. */
  head: string;
  body: Buffer;
}

export type RawOutcome =
  | { kind: 'response'; response: RawResponse; connectionClosing: boolean }
  /** The server closed the connection before a complete answer. */
  | { kind: 'closed'; received: string }
  /** No complete answer within the exchange time limit. */
  | { kind: 'timeout'; received: string };

export interface RawConnectionOptions {
  port: number;
  /** PEM of the only CA trusted: certificate verification stays on. */
  ca: string;
  /** A context made of `ca` once for many connections (each would parse the CA again). */
  secureContext?: SecureContext;
  /** TLS SNI; undefined connects without one (as a client addressing an IP would). */
  servername: string | undefined;
  /** Host name the certificate is checked against instead of the SNI name. */
  verifyHostname?: string;
  /** A TLS session of an earlier connection, to resume instead of a full handshake. */
  session?: Buffer;
}

const LOOPBACK = '127.0.0.1';
const HEAD_END = Buffer.from('\r\n\r\n');
/**
 * A connection idle longer than this is not reused: the server closes idle connections after its
 * keep-alive time-out (5 s by default), and a request written as it closes would be lost.
 */
const IDLE_REUSE_LIMIT_MS = 2_000;

export class RawTlsConnection {
  readonly #socket: TLSSocket;
  #buffer: Buffer = Buffer.alloc(0);
  #ended = false;
  #wake: (() => void) | undefined;
  /** The latest TLS session ticket the server sent, for the next connection to resume. */
  session: Buffer | undefined;

  private constructor(socket: TLSSocket) {
    this.#socket = socket;
    socket.on('session', (session: Buffer) => {
      this.session = session;
    });
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#wake?.();
    });
    // A reset after an answer is part of some rejections; the answer is what is judged.
    socket.on('error', () => {});
    socket.on('close', () => {
      this.#ended = true;
      this.#wake?.();
    });
  }

  static open(options: RawConnectionOptions): Promise<RawTlsConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({
        host: LOOPBACK,
        port: options.port,
        ...(options.secureContext ? { secureContext: options.secureContext } : { ca: options.ca }),
        ...(options.servername === undefined ? {} : { servername: options.servername }),
        ...(options.session === undefined ? {} : { session: options.session }),
        ...(options.verifyHostname === undefined
          ? {}
          : { checkServerIdentity: verifyAs(options.verifyHostname) }),
      });
      socket.once('secureConnect', () => resolve(new RawTlsConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** When the last answer was read: a connection idle for long may be closing on the server. */
  lastUsedMs = Date.now();

  /** Whether another request can be sent on this connection. */
  get usable(): boolean {
    const fresh = Date.now() - this.lastUsedMs < IDLE_REUSE_LIMIT_MS;
    return fresh && !this.#ended && this.#buffer.length === 0 && !this.#socket.destroyed;
  }

  /**
   * Writes `request` and waits for one complete answer (interim 1xx answers are skipped).
   * @param headRequest the answer to HEAD has a Content-Length but no body.
   */
  exchange(request: Buffer, headRequest: boolean, timeoutMs: number): Promise<RawOutcome> {
    this.#socket.write(request);
    return this.readResponse(headRequest, timeoutMs);
  }

  /** Writes bytes without waiting for an answer (several requests at once: pipelining). */
  send(bytes: Buffer): void {
    this.#socket.write(bytes);
  }

  /**
   * Writes `bytes` one at a time, each in a TLS record of its own, `gapMs` apart (0: as fast as
   * the event loop turns, which no timer granularity can stretch); stops early when the server
   * closes the connection. Returns how many bytes were written.
   */
  async trickle(bytes: Buffer, gapMs: number): Promise<number> {
    for (let index = 0; index < bytes.length; index += 1) {
      if (this.#ended) return index;
      this.#socket.write(bytes.subarray(index, index + 1));
      await (gapMs > 0 ? this.#nextEvent(gapMs) : new Promise((resolve) => setImmediate(resolve)));
    }
    return bytes.length;
  }

  /** Waits for one complete answer to what was written, up to `timeoutMs`. */
  async readResponse(headRequest: boolean, timeoutMs: number): Promise<RawOutcome> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = takeResponse(this.#buffer, headRequest, this.#ended);
      if (parsed === 'incomplete') {
        if (this.#ended) return { kind: 'closed', received: this.#buffer.toString('latin1') };
        const left = deadline - Date.now();
        if (left <= 0) return { kind: 'timeout', received: this.#buffer.toString('latin1') };
        await this.#nextEvent(left);
        continue;
      }
      this.#buffer = parsed.rest;
      this.lastUsedMs = Date.now();
      if (parsed.response.status >= 100 && parsed.response.status < 200) continue;
      const connection = (parsed.response.headers.get('connection') ?? []).join(',').toLowerCase();
      return { kind: 'response', response: parsed.response, connectionClosing: connection.includes('close') };
    }
  }

  /** Waits for the server to close the connection, up to `timeoutMs`; true if it did. */
  async closedByServer(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#ended && Date.now() < deadline) await this.#nextEvent(deadline - Date.now());
    return this.#ended;
  }

  close(): void {
    this.#socket.destroy();
  }

  #nextEvent(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(), timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      this.#wake = done;
    });
  }
}

/**
 * Cuts one HTTP/1.1 answer off the front of `buffer`. The reference server frames every answer
 * with Content-Length; an answer without one is complete only when the connection has ended.
 */
function takeResponse(
  buffer: Buffer,
  headRequest: boolean,
  ended: boolean,
): { response: RawResponse; rest: Buffer } | 'incomplete' {
  const headEnd = buffer.indexOf(HEAD_END);
  if (headEnd === -1) return 'incomplete';
  const head = buffer.subarray(0, headEnd).toString('latin1');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  const bodyStart = headEnd + HEAD_END.length;
  const declared = headers.get('content-length')?.[0];
  const noBody = headRequest || (status >= 100 && status < 200) || status === 204 || status === 304;
  let bodyEnd: number;
  if (noBody) bodyEnd = bodyStart;
  else if (declared !== undefined) bodyEnd = bodyStart + Number(declared);
  else if (ended) bodyEnd = buffer.length;
  else return 'incomplete';
  if (buffer.length < bodyEnd) return 'incomplete';
  return {
    response: { status, headers, head, body: buffer.subarray(bodyStart, bodyEnd) },
    rest: buffer.subarray(bodyEnd),
  };
}

function verifyAs(hostname: string) {
  return (_servername: string, certificate: PeerCertificate) => checkServerIdentity(hostname, certificate);
}

/**
 * Keep-alive connections by SNI name. A connection is reused only while the server keeps it open
 * and nothing is left unread on it; a request that may frame as more than one (a CR or LF inside
 * a header) gets a connection of its own, discarded after the first answer.
 */
export class ConnectionPool {
  readonly #idle = new Map<string, RawTlsConnection>();
  /** TLS sessions by SNI name: a new connection resumes one, which makes it much cheaper. */
  readonly #sessions = new Map<string, Buffer>();
  readonly #options: { port: number; ca: string; secureContext: SecureContext; verifyHostname: string };

  constructor(options: { port: number; ca: string; verifyHostname: string }) {
    this.#options = { ...options, secureContext: createSecureContext({ ca: options.ca }) };
  }

  async exchange(
    servername: string | undefined,
    request: Buffer,
    options: { headRequest: boolean; isolated: boolean; timeoutMs: number },
  ): Promise<RawOutcome> {
    const slot = servername ?? '';
    let connection = this.#idle.get(slot);
    this.#idle.delete(slot);
    if (!connection?.usable) {
      connection?.close();
      connection = await RawTlsConnection.open({
        ...this.#options,
        servername,
        session: this.#sessions.get(slot),
      });
    }
    const outcome = await connection.exchange(request, options.headRequest, options.timeoutMs);
    if (connection.session) this.#sessions.set(slot, connection.session);
    const reusable = !options.isolated && outcome.kind === 'response' && !outcome.connectionClosing;
    if (reusable && connection.usable) this.#idle.set(slot, connection);
    else connection.close();
    return outcome;
  }

  closeAll(): void {
    for (const connection of this.#idle.values()) connection.close();
    this.#idle.clear();
  }
}
