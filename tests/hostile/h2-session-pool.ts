// HTTP/2 sessions by SNI name and kind (node's client, or hand-written header blocks), each
// carrying many streams at once. A session is retired after a number of streams: the server
// closes a session after 1 000 malformed requests (Node's maxSessionInvalidFrames), and the
// hand-written sessions carry most of those; new sessions also keep the TLS handshake in the mix.
import { createSecureContext } from 'node:tls';
import { H2Session, type H2SessionOptions } from './h2-session.ts';

/** Streams open at once on one session: under the server's limit of 100. */
const STREAMS_PER_SESSION = 50;
/** Streams a session carries before it is retired. */
const STREAMS_PER_LIFE = { handWritten: 900, node: 10_000 } as const;

export class H2SessionPool {
  readonly #options: Pick<H2SessionOptions, 'port' | 'ca' | 'secureContext' | 'verifyHostname'>;
  readonly #sessions = new Map<string, H2Session[]>();
  readonly #opening = new Map<string, Promise<H2Session>>();
  /** Sessions opened so far. */
  opened = 0;

  constructor(options: Pick<H2SessionOptions, 'port' | 'ca' | 'verifyHostname'>) {
    this.#options = { ...options, secureContext: createSecureContext({ ca: options.ca }) };
  }

  /** A session with room for one more stream, opening one if none has. */
  async get(servername: string | undefined, handWritten: boolean): Promise<H2Session> {
    const slot = `${handWritten ? 'hand' : 'node'} ${servername ?? ''}`;
    const life = handWritten ? STREAMS_PER_LIFE.handWritten : STREAMS_PER_LIFE.node;
    for (;;) {
      const sessions = (this.#sessions.get(slot) ?? []).filter((session) => {
        const alive = session.usable && session.opened < life;
        if (!alive && session.inFlight === 0) session.close();
        return alive || session.inFlight > 0;
      });
      this.#sessions.set(slot, sessions);
      const free = sessions.find(
        (session) => session.usable && session.opened < life && session.inFlight < STREAMS_PER_SESSION,
      );
      if (free) return free;
      let opening = this.#opening.get(slot);
      if (!opening) {
        opening = H2Session.open({ ...this.#options, servername, handWritten });
        this.#opening.set(slot, opening);
        this.opened += 1;
        let session: H2Session;
        try {
          session = await opening;
        } finally {
          this.#opening.delete(slot);
        }
        // Other callers may have replaced the slot's list meanwhile.
        this.#sessions.set(slot, [...(this.#sessions.get(slot) ?? []), session]);
      } else {
        await opening;
      }
    }
  }

  closeAll(): void {
    for (const sessions of this.#sessions.values()) for (const session of sessions) session.close();
    this.#sessions.clear();
  }
}
