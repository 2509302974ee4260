// A registry for a test: started in process on a backend, with a publishers file, a local CA and a
// client that trusts it (undici, as `registry publish` uses); every log line kept, to search.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { registryTls } from '../../../registry/http/certificate.ts';
import { startRegistry, type RegistryOptions, type RunningRegistry } from '../../../registry/http/server.ts';
import { addPublisher, PublishersFile } from '../../../registry/publish/publishers.ts';
import { uploadOf } from '../../../registry/publish/upload.ts';
import type { PoolSizes } from '../../../registry/database/database.ts';
import { openBackend, type Backend, type OpenedBackend } from './backends.ts';
import { scratchDirectory } from '../../support/scratch.ts';

export interface TestRegistry {
  backend: OpenedBackend;
  registry: RunningRegistry;
  caPath: string;
  publishersFile: string;
  /** Each publisher's token, by name. */
  tokens: Map<string, string>;
  logs: string[];
  /** A request to the main port, or with `gate` to the gate port (gateThread). */
  request(
    path: string,
    init?: {
      method?: string;
      body?: string;
      token?: string;
      headers?: Record<string, string>;
      gate?: boolean;
    },
  ): Promise<{ status: number; text: string; json: unknown; headers: Headers }>;
  publish(
    bundle: string,
    deployment: string,
    version: string,
    token: string,
  ): Promise<{ status: number; json: unknown }>;
  /** Stops the registry (not its database) and starts another on the same database and publishers. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** One CA for every registry of a test process. */
const certDir = scratchDirectory('registry-certs-');

export async function startTestRegistry(
  backend: Backend,
  publishers: Record<string, string[]>,
  options: {
    privateReads?: boolean;
    maxBundleBytes?: number;
    maxUploads?: number;
    maxWaitingUploads?: number;
    webhooks?: RegistryOptions['webhooks'];
    pagesAtOnce?: number;
    /** A PostgreSQL server's pools (the embedded database has one connection). */
    pools?: PoolSizes;
    uploadsDirectory?: string;
    /** can-i-ship and the badge on a gate port too, served by a gate thread (registry/gate/). */
    gateThread?: boolean;
    blobDirectory?: string;
    blobThreshold?: number;
  } = {},
): Promise<TestRegistry> {
  const { pools, gateThread = false, ...registryOptions } = options;
  const opened = await openBackend(backend, true, pools, gateThread);
  const publishersFile = join(scratchDirectory('registry-publishers-'), 'publishers.json');
  const tokens = new Map<string, string>();
  for (const [name, keys] of Object.entries(publishers))
    tokens.set(name, addPublisher(publishersFile, name, keys).token);
  const tls = await registryTls({ certDir });
  const logs: string[] = [];
  const start = (): Promise<RunningRegistry> =>
    startRegistry({
      db: opened.db,
      publishers: new PublishersFile(publishersFile, (line) => logs.push(line)),
      tls,
      log: (line) => logs.push(line),
      ...(opened.gate ? { gate: { thread: opened.gate, port: 0, publishersFile } } : {}),
      ...registryOptions,
    });
  let registry = await start();
  const caPath = tls.caPath ?? '';
  const dispatcher = new Agent({ connect: { ca: readFileSync(caPath, 'utf8') } });
  const request: TestRegistry['request'] = async (path, init = {}) => {
    const base = init.gate ? registry.gateUrl : registry.url;
    if (base === undefined) throw new Error('this test registry has no gate port: start it with gateThread');
    const response = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      dispatcher,
      headers: {
        ...(init.token !== undefined ? { authorization: `Bearer ${init.token}` } : {}),
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json, headers: response.headers as unknown as Headers };
  };
  return {
    backend: opened,
    get registry() {
      return registry;
    },
    caPath,
    publishersFile,
    tokens,
    logs,
    request,
    publish: async (bundle, deployment, version, token) => {
      const answer = await request('/api/v1/runs', {
        method: 'POST',
        body: uploadOf(bundle, deployment, version),
        token,
      });
      return { status: answer.status, json: answer.json };
    },
    async restart() {
      await registry.close();
      registry = await start();
    },
    async close() {
      await registry.close();
      await dispatcher.close();
      await opened.close();
    },
  };
}
