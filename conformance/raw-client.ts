// Requests that Playwright's request API cannot express: two Authorization headers, a Host
// header that differs from the TLS SNI, a key in a URL sent without leaving it in Playwright's
// step log, or plain HTTP. Built on node:http/https with the target's host map and CA;
// certificate verification stays on.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { elapsedSince, startRequest, type Exchange, type ExchangeListener } from './exchange.ts';
import { lookupWith, type HostMap } from './host-map.ts';

export interface RawRequest {
  url: string;
  method?: string;
  /** Sent in this order, repeats included. */
  headers?: readonly (readonly [string, string])[];
  body?: string;
  /** The Host header; defaults to the URL's host. */
  hostHeader?: string;
  note?: string;
}

export interface RawClientOptions {
  hosts: HostMap;
  caFile?: string;
  timeoutMs?: number;
  onExchange?: ExchangeListener;
}

const MAX_BODY_BYTES = 256 * 1024;

export class RawClient {
  readonly #lookup: ReturnType<typeof lookupWith>;
  readonly #ca: string[] | undefined;
  readonly #timeoutMs: number;
  readonly #onExchange: ExchangeListener | undefined;

  /** With `shared`, its host map and CA are used instead of reading them again. */
  constructor(options: RawClientOptions, shared?: RawClient) {
    this.#lookup = shared ? shared.#lookup : lookupWith(options.hosts);
    // The target's CA is trusted in addition to the system's, never instead of it.
    this.#ca = shared
      ? shared.#ca
      : options.caFile === undefined
        ? undefined
        : [...rootCertificates, readFileSync(options.caFile, 'utf8')];
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#onExchange = options.onExchange;
  }

  /** The same client (its CA read once), telling `onExchange` of every exchange it completes. */
  listening(onExchange: ExchangeListener): RawClient {
    return new RawClient({ hosts: {}, timeoutMs: this.#timeoutMs, onExchange }, this);
  }

  async send(raw: RawRequest): Promise<Exchange> {
    const exchange = await this.#send(raw);
    this.#onExchange?.(exchange);
    return exchange;
  }

  #send(raw: RawRequest): Promise<Exchange> {
    const url = new URL(raw.url);
    const headers: [string, string][] = [
      ['Host', raw.hostHeader ?? url.host],
      ...(raw.headers ?? []).map(([name, value]): [string, string] => [name, value]),
    ];
    const summary = startRequest(raw.method ?? 'GET', raw.url, headers, { body: raw.body, note: raw.note });
    const flatHeaders = headers.flat();
    const options = {
      host: url.hostname,
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: summary.method,
      headers: flatHeaders,
      setHost: false,
      lookup: this.#lookup,
      agent: false as const,
      timeout: this.#timeoutMs,
    };
    const failed = (error: NodeJS.ErrnoException): Exchange => ({
      kind: 'failure',
      request: summary,
      durationMs: elapsedSince(summary),
      error: describe(error),
    });
    return new Promise<Exchange>((resolve) => {
      const onResponse = (response: IncomingMessage): void => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            kind: 'response',
            request: summary,
            durationMs: elapsedSince(summary),
            status: response.statusCode ?? 0,
            headers: joinHeaders(response.headersDistinct),
            bodyText: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', (error) => resolve(failed(error)));
      };
      const request =
        url.protocol === 'https:'
          ? httpsRequest({ ...options, servername: url.hostname, ca: this.#ca }, onResponse)
          : httpRequest(options, onResponse);
      request.on('timeout', () =>
        request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
      );
      request.on('error', (error) => resolve(failed(error)));
      request.end(raw.body);
    });
  }
}

function joinHeaders(headers: NodeJS.Dict<string[]>): Record<string, string> {
  const joined: Record<string, string> = {};
  for (const [name, values] of Object.entries(headers)) if (values) joined[name] = values.join(', ');
  return joined;
}

function describe(error: NodeJS.ErrnoException): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
