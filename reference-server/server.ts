// Starts the reference server: the HTTPS API for every tenant host, each tenant's administration
// panel and the admin API on the same listener (told apart by host), and the plain-HTTP listener
// that rejects everything. One process serves every tenant. This file only puts the parts together:
// the store, the client journal, the front door every request goes through (front-door/), and the
// two listeners (listeners/).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { noAccessLog } from './http/access-log.ts';
import { resolvePanelHost, siteUrls } from './http/hosts.ts';
import { lockDataDir } from './store/data-dir-lock.ts';
import { openKeyStoreFile, type PersistedKeys } from './store/key-store-file.ts';
import { UserDirectory } from './panel/users.ts';
import { createPlainHttpServer } from './listeners/plain-http.ts';
import { listenAll } from './listeners/listen.ts';
import { DEFAULT_LIMITS } from './listeners/listener-limits.ts';
import { createSecureListener, type SecureListener } from './listeners/secure-listener.ts';
import { openFrontDoor } from './front-door/front-door.ts';
import { siteContexts } from './front-door/sites.ts';
import { TenantData } from './store/tenant-data.ts';
import { journalOf } from './journal/journal.ts';
import { BehaviourTable } from './behaviours/behaviour-table.ts';
import { CORRECT_STEPS, type ServerSteps } from './steps/server-steps.ts';

import type { ReferenceServerOptions, RunningReferenceServer } from './server-options.ts';

export { DEFAULT_LIMITS, type ServerLimits } from './listeners/listener-limits.ts';
export type { ReferenceServerOptions, RunningReferenceServer };

export async function startReferenceServer(options: ReferenceServerOptions): Promise<RunningReferenceServer> {
  const steps: ServerSteps = { ...CORRECT_STEPS, ...options.steps };
  const { data, certificates, users, release } = await prepare(options, steps);
  const { domain } = options;
  const journal = journalOf(options.journalCapacity, data);
  const log = options.accessLog ?? noAccessLog;
  const behaviours = new BehaviourTable(data);
  const sites = siteContexts({ domain, data, journal, behaviours }, users, options.adminToken);
  const door = openFrontDoor({
    domain,
    data,
    steps,
    log,
    journal,
    sites,
    behaviours,
    customersPageSize: options.customersPageSize,
  });
  const limits = options.limits ?? DEFAULT_LIMITS;
  const isServedPanelHost = (hostname: string): boolean =>
    data.account(resolvePanelHost(hostname, domain)?.tenant ?? '') !== undefined;
  const https = createSecureListener(
    { certificates, isServedPanelHost, limits, http2: options.http2 ?? true },
    // A connection without SNI is a client fault the journal records even when no request follows.
    { ...door.secure, secureConnection: journal && ((socket) => journal.watchConnection(socket)) },
  );
  const plain = options.httpPort === null ? null : createPlainHttpServer(limits, door.plain);
  const listeners: { server: SecureListener | Server; port: number }[] = [
    { server: https, port: options.httpsPort },
  ];
  if (plain) listeners.push({ server: plain, port: options.httpPort ?? 0 });
  const stop = await listenAll(listeners, options.host).catch(async (error: unknown) => {
    await release();
    throw error;
  });
  const httpsPort = (https.address() as AddressInfo).port;
  const httpPort = plain ? (plain.address() as AddressInfo).port : null;
  // Released after the last request: its last use is written too.
  const close = async (): Promise<void> => stop().then(release);
  const { caPath, reused: certificatesReused } = certificates;
  const urls = siteUrls(domain, { https: httpsPort, http: httpPort });
  return {
    httpsPort,
    httpPort,
    domain,
    ...urls,
    caPath,
    certificatesReused,
    requestListener: door.secure.request,
    close,
  };
}

/**
 * The key store (from the data directory, if any), the certificates and the panel's users, and
 * `release` to close the store and unlock the directory.
 */
async function prepare(options: ReferenceServerOptions, steps: ServerSteps) {
  // Taken before the store is read: a second server on the directory stops here, naming the first.
  const lock = options.dataDir ? lockDataDir(options.dataDir) : undefined;
  let persisted: PersistedKeys | undefined;
  const release = async (): Promise<void> => {
    await persisted?.close();
    lock?.release();
  };
  try {
    persisted = options.dataDir
      ? openKeyStoreFile(options.dataDir, { usageFlushMs: options.usageFlushMs })
      : undefined;
    const data = new TenantData(options.fixtures, persisted?.store);
    persisted?.startSaving();
    const certificates = await steps.certificates(options.certDir, options.domain);
    const users = await UserDirectory.fromFixtures(options.fixtures);
    return { data, certificates, users, release };
  } catch (error) {
    await release();
    throw error;
  }
}
