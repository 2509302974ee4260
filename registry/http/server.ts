// The registry's HTTPS server: one router for the JSON API (/api/v1/…), the pages, the badge and
// a run's files. Reads are public unless --private-reads; a publish always needs a publisher's
// token. One line is logged per request: method, path, status and time — never a header.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { Database } from '../database/database.ts';
import type { PublisherSource } from '../publish/publishers.ts';
import { siteRoutes } from '../web/site.ts';
import { certifiedList, deploymentHistory, diffAnswer, publish, runDetail, type ApiContext } from './api.ts';
import { UploadAborted } from './body.ts';
import { DEFAULT_MAX_UPLOADS, UploadGate } from './upload-gate.ts';
import { RequestError, sendFailure, sendJson } from './respond.ts';
import { checkRead, gateRoute, pathSegments } from './gate-routes.ts';
import { removeStaleUploads } from '../publish/receive.ts';
import { BlobStore } from '../store/blobs.ts';
import { bundleFileNames } from '../store/bundle-files.ts';
import { noFiles } from '../web/site.ts';
import { deploymentProblem } from '../publish/upload.ts';
import { auditAnswer, release, retention, yank } from './operations.ts';
import { Webhooks, type WebhookOptions } from '../webhooks/service.ts';
import { webhookRoutes } from './webhooks.ts';
import type { GateThread } from '../gate/gate.ts';

export interface RegistryOptions {
  db: Database;
  /** Read at each request that needs a token: a PublishersFile follows the file as it changes. */
  publishers: PublisherSource;
  tls: { key: string; cert: string };
  port?: number;
  host?: string;
  /** The largest bundle accepted, in bytes. */
  maxBundleBytes?: number;
  /** Uploads received at once (and as many waiting); default DEFAULT_MAX_UPLOADS. */
  maxUploads?: number;
  /** Uploads that wait for a slot before the next is refused; default maxUploads. */
  maxWaitingUploads?: number;
  /** Every read needs a token of the publishers file (a publisher's or a reader's). */
  privateReads?: boolean;
  /** How webhooks are delivered: trusted CAs, allowed hosts, bounds (registry/webhooks/worker.ts). */
  webhooks?: WebhookOptions;
  /** Reads other than can-i-ship and the badge answered at once; default DEFAULT_PAGES_AT_ONCE. */
  pagesAtOnce?: number;
  /**
   * Where uploads are written as they arrive (`registry serve`: DATA/uploads); default the
   * temporary directory. A disk, not memory: on a tmpfs /tmp an upload would count as RAM again.
   */
  uploadsDirectory?: string;
  /**
   * can-i-ship and the badge served on a port of their own by the gate thread (--gate-port), on an
   * event loop no page shares. `publishersFile` is what the thread reads tokens from when
   * privateReads. The caller opened the thread and closes it after the registry.
   */
  gate?: { thread: GateThread; port: number; publishersFile?: string };
  /**
   * Where a bundle's large files are kept, outside the database (`registry serve` on the embedded
   * database: DATA/blobs); none: every file is stored in its row. Only one registry may use it.
   */
  blobDirectory?: string;
  /** Files of at least this many bytes go to the blob directory; default DEFAULT_BLOB_THRESHOLD. */
  blobThreshold?: number;
  log?: (line: string) => void;
}

export interface RunningRegistry {
  url: string;
  port: number;
  server: Server;
  /** The gate port's URL, when `gate` was given. */
  gateUrl?: string;
  close(): Promise<void>;
}

/** Far above any real bundle (a long run's HAR is the largest file), far below memory trouble. */
export const DEFAULT_MAX_BUNDLE_BYTES = 64 * 1024 * 1024;

/**
 * Pages (and the API's other reads) answered at once. A page costs tens of milliseconds of the
 * event loop (its queries' rows, its HTML, its TLS); with two at a time a gate read shares the loop
 * with two of them, not with a whole crowd. Those past the bound wait, up to PAGES_WAITING_PER_SLOT
 * per slot; the next are refused 503 with Retry-After.
 */
export const DEFAULT_PAGES_AT_ONCE = 2;
const PAGES_WAITING_PER_SLOT = 64;

const RUN_ID = /^[1-9][0-9]{0,9}$/;

function runId(text: string): number {
  if (!RUN_ID.test(text) || Number(text) > 2_147_483_647)
    throw new RequestError(404, 'no_such_run', `"${text.slice(0, 20)}" is not a run number.`);
  return Number(text);
}

async function route(
  context: ApiContext,
  options: RegistryOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'https://registry.invalid');
  const path = url.pathname;
  const method = request.method ?? 'GET';
  if (path === '/api/v1/runs') {
    if (method !== 'POST')
      throw new RequestError(405, 'method_not_allowed', 'POST a bundle to /api/v1/runs.');
    return publish(context, request, response);
  }
  if (path === '/api/v1/webhooks' || path.startsWith('/api/v1/webhooks/'))
    return webhookRoutes(context, path, method, url.searchParams, request, response);
  // The operations (docs/registry.md, "Operate"): each authenticates its own caller.
  const operation =
    /^\/api\/v1\/(?:runs\/([^/]+)\/(yank)|deployments\/([^/]+)\/(releases)|(retention)|(audit))$/.exec(path);
  if (operation) {
    const [, yankRun, yankPath, , releasesPath] = operation;
    const expected = operation[6] === 'audit' ? 'GET' : 'POST';
    if (method !== expected)
      throw new RequestError(405, 'method_not_allowed', `${expected} ${path.slice(0, 100)}.`);
    if (yankPath) return yank(context, runId(yankRun ?? ''), request, response);
    if (releasesPath) {
      const name = pathSegments(path)[3] ?? '';
      const problem = deploymentProblem(name);
      if (problem) throw new RequestError(400, 'bad_deployment', problem);
      return release(context, name, request, response);
    }
    if (operation[5]) return retention(context, request, response);
    return auditAnswer(context, url.searchParams, request, response);
  }
  const segments = checkRead(request, response, path, options.privateReads ? context.publishers : undefined);
  // The reads a release waits on take their own lane (Database.gate); every other read waits its
  // turn among --pages-at-once, so that no crowd of pages stalls them. The gate port (--gate-port)
  // answers them on a thread of their own as well.
  if (await gateRoute(context.db.gate, segments, url.searchParams, response)) return;
  const leave = await context.pages.enter();
  if (leave === undefined)
    throw new RequestError(
      503,
      'too_many_reads',
      `The registry is answering ${context.pages.max} pages with ${context.pages.maxWaiting} more waiting (--pages-at-once): ask again after the Retry-After seconds.`,
    );
  try {
    await pageRoute(context, segments, url, response);
  } finally {
    leave();
  }
}

/** Every read but can-i-ship and the badge: the API's lists, runs and diff, the pages, the files. */
async function pageRoute(
  context: ApiContext,
  segments: string[],
  url: URL,
  response: ServerResponse,
): Promise<void> {
  const path = url.pathname;
  const [first, second, third, fourth] = segments;
  if (first === 'api' && second === 'v1') {
    if (segments.length === 3 && third === 'diff') return diffAnswer(context, url.searchParams, response);
    if (segments.length === 3 && third === 'deployments')
      return certifiedList(context, url.searchParams, response);
    if (segments.length === 4 && third === 'deployments')
      return deploymentHistory(context, fourth ?? '', url.searchParams, response);
    if (segments.length === 4 && third === 'runs') return runDetail(context, runId(fourth ?? ''), response);
    if (segments.length === 5 && third === 'runs' && segments[4] === 'files') {
      const id = runId(fourth ?? '');
      const names = await bundleFileNames(context.db, id);
      if (names.length === 0) throw await noFiles(context.db, id);
      return sendJson(response, 200, {
        files: names.map((name) => ({ name, url: `/runs/${id}/files/${name}` })),
      });
    }
    throw new RequestError(
      404,
      'not_found',
      `No API at ${path.slice(0, 100)}: see docs/registry-openapi.json.`,
    );
  }
  const handled = await siteRoutes(context.db, context.blobs, segments, url.searchParams, response);
  if (!handled) throw new RequestError(404, 'not_found', `Nothing at ${path.slice(0, 100)}.`);
}

export async function startRegistry(options: RegistryOptions): Promise<RunningRegistry> {
  const log = options.log ?? ((line: string) => console.log(line));
  const context: ApiContext = {
    db: options.db,
    publishers: options.publishers,
    maxBundleBytes: options.maxBundleBytes ?? DEFAULT_MAX_BUNDLE_BYTES,
    uploads: new UploadGate(
      options.maxUploads ?? DEFAULT_MAX_UPLOADS,
      options.maxWaitingUploads ?? options.maxUploads ?? DEFAULT_MAX_UPLOADS,
    ),
    webhooks: new Webhooks(options.db, options.webhooks ?? {}, log),
    pages: new UploadGate(
      options.pagesAtOnce ?? DEFAULT_PAGES_AT_ONCE,
      (options.pagesAtOnce ?? DEFAULT_PAGES_AT_ONCE) * PAGES_WAITING_PER_SLOT,
    ),
    uploadsDirectory: options.uploadsDirectory ?? tmpdir(),
    ...(options.blobDirectory !== undefined
      ? { blobs: new BlobStore(options.blobDirectory, options.blobThreshold) }
      : {}),
  };
  for (const name of removeStaleUploads(context.uploadsDirectory))
    log(`removed ${name}: the upload directory of a registry that was stopped mid-publish`);
  if (context.blobs) {
    const left = await context.blobs.removeUnreferenced(context.db);
    if (left.blobs + left.temporary > 0)
      log(
        `removed ${left.blobs} blob${left.blobs === 1 ? '' : 's'} no run references and ${left.temporary} temporary file${left.temporary === 1 ? '' : 's'}: left by a registry stopped mid-publish`,
      );
  }
  const server = createServer({ key: options.tls.key, cert: options.tls.cert }, (request, response) => {
    const started = performance.now();
    response.once('finish', () => {
      const path = (request.url ?? '/').split('?')[0]?.slice(0, 200);
      log(`${request.method} ${path} ${response.statusCode} ${Math.round(performance.now() - started)} ms`);
    });
    route(context, options, request, response).catch((error: unknown) => {
      if (error instanceof UploadAborted) {
        request.destroy();
        return;
      }
      sendFailure(error, request, response, log);
    });
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 300_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const urlOf = (listening: number): string =>
    `https://${host === '127.0.0.1' || host === '::1' || host === '0.0.0.0' ? 'localhost' : host}:${listening}`;
  let gateUrl: string | undefined;
  if (options.gate) {
    const { thread, publishersFile } = options.gate;
    try {
      if (options.privateReads && publishersFile === undefined)
        throw new Error('the gate port needs the publishers file to check tokens (--private-reads)');
      const gatePort = await thread.serve({
        tls: options.tls,
        port: options.gate.port,
        host,
        ...(options.privateReads ? { publishersFile } : {}),
      });
      gateUrl = urlOf(gatePort);
    } catch (error) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw error;
    }
  }
  context.webhooks.start();
  return {
    url: urlOf(port),
    ...(gateUrl !== undefined ? { gateUrl } : {}),
    port,
    server,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await options.gate?.thread.stopServing();
      // After the last request: a delivery in flight is given back to the queue for the next start.
      await context.webhooks.close();
    },
  };
}
