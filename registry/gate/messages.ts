// What the registry's main thread and its gate thread (thread.ts) say to each other: the database
// requests of the embedded database it hosts (database/embedded-host.ts), and the thread's control.
import type { DatabaseReply, DatabaseRequest } from '../database/embedded-host.ts';

/** Where the gate thread's reads go: the embedded database it opens, or a server's own pool. */
export type GateDatabase =
  | { kind: 'embedded'; directory: string }
  | { kind: 'server'; url: string; password?: string; gatePoolSize: number };

/** How the gate thread serves its port; `publishersFile` when every read needs a token. */
export interface GateServe {
  tls: { key: string; cert: string };
  port: number;
  host: string;
  publishersFile?: string;
}

export type ToGate =
  | { type: 'database'; request: DatabaseRequest }
  | { type: 'serve'; serve: GateServe }
  | { type: 'unserve' }
  | { type: 'close' };

export type FromGate =
  | { type: 'database'; reply: DatabaseReply }
  | { type: 'ready' }
  | { type: 'serving'; port: number }
  | { type: 'unserved' }
  | { type: 'closed' }
  | { type: 'failed'; message: string }
  | { type: 'log'; line: string };
