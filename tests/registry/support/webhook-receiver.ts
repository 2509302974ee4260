// A webhook endpoint for the registry's tests: a real HTTPS server (node:https) on loopback with a
// certificate from a private CA made for the test (the registry is told to trust that CA, nothing
// else is), which records every request it gets — path, headers, the body's exact bytes — and
// answers as the test says: a status, or hold the request until the test releases it.
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeCertificates } from '../../independent-implementation/certificates.ts';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Set once the receiver has answered (a held request has not, until released). */
  answered: number | undefined;
}

export type Answer = number | 'hold';

export interface WebhookReceiver {
  /** https://localhost:PORT */
  url: string;
  caPem: string;
  received: Received[];
  /** How the next requests to `path` are answered, one answer each, the last for every later one (default 200). */
  answer(path: string, ...answers: Answer[]): void;
  /** Answers every held request with `status`. */
  release(status: number): void;
  /** Waits until `count` requests matching `where` arrived (polls, at most `polls` × 20 ms). */
  waitFor(where: (request: Received) => boolean, count?: number, polls?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const certificates = await makeCertificates('Webhook Receiver Test CA', ['localhost']);
  const received: Received[] = [];
  const answers = new Map<string, Answer[]>();
  const held: { request: Received; response: ServerResponse }[] = [];
  const server: Server = createServer(
    { key: certificates.key, cert: certificates.cert },
    (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        const entry: Received = {
          path,
          headers: request.headers,
          body: Buffer.concat(chunks),
          answered: undefined,
        };
        received.push(entry);
        const queue = answers.get(path) ?? [];
        const answer = (queue.length > 1 ? queue.shift() : queue[0]) ?? 200;
        if (answer === 'hold') {
          held.push({ request: entry, response });
          return;
        }
        entry.answered = answer;
        response.writeHead(answer, { 'Content-Type': 'text/plain' }).end(`answered ${answer}\n`);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}`,
    caPem: certificates.caPem,
    received,
    answer: (path, ...queue) => answers.set(path, queue),
    release(status) {
      for (const { request, response } of held.splice(0)) {
        request.answered = status;
        if (!response.destroyed) response.writeHead(status).end();
      }
    },
    async waitFor(where, count = 1, polls = 1500) {
      for (let poll = 0; poll < polls; poll++) {
        const matching = received.filter(where);
        if (matching.length >= count) return matching;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`the receiver got ${received.filter(where).length} of the ${count} requests awaited`);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
