// The registry's HTTPS server: one router for the JSON API (/api/v1/…), the pages, the badge and
// a run's files. Reads are public unless --private-reads; a publish always needs a publisher's
// token. One line is logged per request: method, path, status and time — never a header.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { Database } from '../database/database.ts';
import { authenticate, type PublisherSource } from '../publish/publishers.ts';
import { renderRegistryBadge } from '../web/badge.ts';
import { siteRoutes } from '../web/site.ts';
import {
  authenticationError,
  canIShipAnswer,
  certifiedList,
  deploymentHistory,
  diffAnswer,
  publish,
  runDetail,
  type ApiContext,
} from './api.ts';
import { UploadAborted } from './body.ts';
import { DEFAULT_MAX_UPLOADS, UploadGate } from './upload-gate.ts';
import { markPrivate, RequestError, send, sendError, sendJson } from './respond.ts';
import { removeStaleUploads } from '../publish/receive.ts';
import { BlobStore } from '../store/blobs.ts';
import { bundleFileNames } from '../store/bundle-files.ts';
import { noFiles } from '../web/site.ts';
import { deploymentProblem } from '../publish/upload.ts';
import { auditAnswer, release, retention, yank } from './operations.ts';
import { Webhooks, type WebhookOptions } from '../webhooks/service.ts';
import { webhookRoutes } from './webhooks.ts';

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

/** The path's segments, decoded; a malformed percent-encoding is the client's error, not a 500. */
function pathSegments(path: string): string[] {
  let segments: string[];
  try {
    segments = path
      .split('/')
      .filter(Boolean)
      .map((segment) => decodeURIComponent(segment));
  } catch {
    throw new RequestError(
      400,
      'bad_path',
      'The path holds a malformed percent-encoding (a % not followed by two hex digits of UTF-8).',
    );
  }
  // A NUL or another control character names no page or file of the registry (and PostgreSQL's text
  // refuses a NUL): the client's error, named, not a 500.
  // eslint-disable-next-line no-control-regex
  const control = segments.find((segment) => /[\u0000-\u001f\u007f]/.test(segment));
  if (control !== undefined)
    throw new RequestError(
      400,
      'bad_path',
      `The path holds a ${control.includes('\u0000') ? 'NUL byte (%00)' : 'control character'}, which no page or file of the registry has: remove it.`,
    );
  return segments;
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
  if (method !== 'GET' && method !== 'HEAD')
    throw new RequestError(
      405,
      'method_not_allowed',
      `${method.slice(0, 10)} is not allowed here: the registry's pages and reads are GET.`,
    );
  if (options.privateReads) {
    // What needs a token is never kept by a shared cache: every answer is Cache-Control: private.
    markPrivate(response);
    const authentication = authenticate(context.publishers.current(), request.headers.authorization);
    if (authentication.state !== 'ok') throw authenticationError(authentication.state);
  }
  const segments = pathSegments(path);
  const [first, second, third] = segments;
  // The reads a release waits on take their own lane (Database.gate); every other read waits its
  // turn among --pages-at-once, so that no crowd of pages stalls them.
  if (first === 'api' && second === 'v1' && segments.length === 3 && third === 'can-i-ship')
    return canIShipAnswer(context, url.searchParams, response);
  if (first === 'badge' && segments.length === 2 && second?.endsWith('.svg')) {
    const svg = await renderRegistryBadge(context.db.gate, second.slice(0, -'.svg'.length));
    return send(response, 200, 'image/svg+xml', svg, { 'Cache-Control': 'no-cache' });
  }
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
      if (error instanceof RequestError) return sendError(response, error, request);
      // Never the error's text or stack to the client; the log names what happened.
      log(`error: ${error instanceof Error ? `${error.name}: ${error.message}` : 'unknown'}`);
      sendError(
        response,
        new RequestError(500, 'internal_error', 'The registry could not answer: see its log.'),
        request,
      );
    });
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 300_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  context.webhooks.start();
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  return {
    url: `https://${host === '127.0.0.1' || host === '::1' || host === '0.0.0.0' ? 'localhost' : host}:${port}`,
    port,
    server,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // After the last request: a delivery in flight is given back to the queue for the next start.
      await context.webhooks.close();
    },
  };
}
