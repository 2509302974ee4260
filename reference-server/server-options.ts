// What the reference server is started with (`startReferenceServer` of server.ts), and what a
// started one offers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fixtures } from '../schemas/generated/fixtures.ts';
import type { ServerSteps } from './steps/server-steps.ts';
import type { AccessLogSink } from './http/access-log.ts';
import type { SiteUrls } from './http/hosts.ts';
import type { ServerLimits } from './listeners/listener-limits.ts';

export interface ReferenceServerOptions {
  host: string;
  /** HTTPS port; 0 picks a free one. */
  httpsPort: number;
  /** Plain-HTTP port (rejects everything); 0 picks a free one, null disables the listener. */
  httpPort: number | null;
  domain: string;
  fixtures: Fixtures;
  certDir: string;
  limits?: ServerLimits;
  accessLog?: AccessLogSink;
  /** Where keys and their HMAC secret outlive a restart (see store/key-store-file.ts); absent: memory only. */
  dataDir?: string;
  /** The admin API's bearer token; absent: the admin API is off. */
  adminToken?: string;
  /** How often last-use times are written to the data directory. */
  usageFlushMs?: number;
  /** Entries the client journal keeps per tenant (journal/journal.ts); 0 turns it off. */
  journalCapacity?: number;
  /** Whether the HTTPS listener offers HTTP/2 (by ALPN, beside HTTP/1.1); default true. */
  http2?: boolean;
  /** Customers per page of GET /v1/customers (api/customer-pages.ts); absent: the whole list. */
  customersPageSize?: number;
  /**
   * Steps that replace the correct ones (steps/server-steps.ts). Only the suite's self-test sets them, to
   * prove with a deliberately broken server that the suite fails (mutation/).
   */
  steps?: Partial<ServerSteps>;
}

export interface RunningReferenceServer extends SiteUrls {
  httpsPort: number;
  httpPort: number | null;
  caPath: string;
  certificatesReused: boolean;
  domain: string;
  /**
   * The HTTPS listener's request handler, the one every request goes through: for measuring the
   * server's own work per request in one process (bench/own-work.ts), without TLS or sockets.
   */
  requestListener: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}
