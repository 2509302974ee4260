// The suite's HTTP client: Playwright's APIRequestContext (through the CONNECT proxy when the
// target maps host names), never following redirects and never failing on a status, so that
// every answer is evidence for a check.
import type { APIRequestContext } from '@playwright/test';
import {
  elapsedSince,
  startRequest,
  type Exchange,
  type ExchangeListener,
  type RequestSummary,
} from './exchange.ts';
import { PROXY_ERROR_HEADER } from './connect-proxy.ts';
import { runSettings } from '../settings.ts';
import { makeExchange } from './send.ts';
import { CLOSED_BEFORE_ANSWER } from './transient.ts';

/** How Node (under Playwright) says a connection closed before any byte of its answer. */
const CLOSED_UNANSWERED = /socket hang up|ECONNRESET|other side closed/;

export interface GetOptions {
  headers?: Record<string, string>;
  note?: string;
  refusalExpected?: boolean;
}

/** What a rule asks of the API: a GET, answered or not (api-client.ts over HTTP/1.1, raw-api.ts over HTTP/2). */
export interface Api {
  get(url: string, options?: GetOptions): Promise<Exchange>;
}

export class ApiClient implements Api {
  readonly #context: APIRequestContext;
  readonly #onExchange: ExchangeListener | undefined;

  constructor(context: APIRequestContext, onExchange?: ExchangeListener) {
    this.#context = context;
    this.#onExchange = onExchange;
  }

  get(url: string, options: GetOptions = {}): Promise<Exchange> {
    const headers = { Accept: 'application/json', 'Content-Type': 'application/json', ...options.headers };
    const request = startRequest('GET', url, Object.entries(headers), {
      note: options.note,
      refusalExpected: options.refusalExpected,
    });
    return makeExchange(request, (sent, timeoutMs) => this.#send(url, headers, sent, timeoutMs), {
      timeoutMs: runSettings().requestTimeoutMs,
      onExchange: this.#onExchange,
    });
  }

  async #send(
    url: string,
    headers: Record<string, string>,
    request: RequestSummary,
    timeoutMs: number,
  ): Promise<Exchange> {
    try {
      const response = await this.#context.get(url, {
        headers,
        maxRedirects: 0,
        failOnStatusCode: false,
        timeout: timeoutMs,
      });
      const proxyError = response.headers()[PROXY_ERROR_HEADER.toLowerCase()];
      if (proxyError !== undefined) {
        return {
          kind: 'failure',
          request,
          durationMs: elapsedSince(request),
          error: `${proxyError}: no connection to the target (reported by the suite's local proxy)`,
        };
      }
      const bodyText = await response.text();
      return {
        kind: 'response',
        request,
        durationMs: elapsedSince(request),
        status: response.status(),
        headers: Object.fromEntries(
          Object.entries(response.headers()).map(([name, value]) => [name.toLowerCase(), value]),
        ),
        bodyText,
      };
    } catch (error) {
      // Playwright's message carries a call log with the request headers, key included: keep only
      // its first line, and redact that too when it is reported.
      const firstLine = ((error as Error).message ?? String(error)).split('\n', 1)[0] ?? '';
      return {
        kind: 'failure',
        request,
        durationMs: elapsedSince(request),
        error: firstLine,
        // Its connections are kept alive: one the front closed as the request left had no byte of
        // an answer, and the request is sent again once (send.ts), on a new connection.
        ...(CLOSED_UNANSWERED.test(firstLine) ? { signal: CLOSED_BEFORE_ANSWER } : {}),
      };
    }
  }
}
