// The suite's HTTP client: Playwright's APIRequestContext (through the CONNECT proxy when the
// target maps host names), never following redirects and never failing on a status, so that
// every answer is evidence for a check. A request carries exactly the fields its record lists:
// the context's cookie store is empty before every request (a cookie a deployment set is never
// sent back unless a rule sends it: emptied unless known empty), and the fields Playwright and Node would add by themselves
// (User-Agent, Accept-Encoding, Host, Connection) are set here, so that they are recorded too.
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
import { nextUserAgent } from './user-agents.ts';
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
  #lastTry: Promise<void> = Promise.resolve();
  /**
   * The store is known empty: it was emptied, and every answer since came whole and set no cookie.
   * Emptying it is a call into Playwright (a captured stack, a message through its connection), a
   * third of those of a request: an empty store is not emptied again. Not known at first (the
   * context is the caller's), nor after a try that failed (an answer may have set one unseen).
   */
  #storeEmpty = false;

  constructor(context: APIRequestContext, onExchange?: ExchangeListener) {
    this.#context = context;
    this.#onExchange = onExchange;
  }

  get(url: string, options: GetOptions = {}): Promise<Exchange> {
    const fields = wireFields(url, {
      Accept: 'application/json',
      'Content-Type': 'application/json',
      ...options.headers,
    });
    const headers = Object.fromEntries(fields);
    const request = startRequest('GET', url, fields, {
      note: options.note,
      refusalExpected: options.refusalExpected,
    });
    return makeExchange(request, (sent, timeoutMs) => this.#sendAlone(url, headers, sent, timeoutMs), {
      timeoutMs: runSettings().requestTimeoutMs,
      onExchange: this.#onExchange,
    });
  }

  /**
   * One try at a time per client, each with an empty cookie store: a cookie set by the answer to
   * a request sent beside it (the tenants' data are learned three at once) would otherwise ride
   * on the next one.
   */
  #sendAlone(
    url: string,
    headers: Record<string, string>,
    request: RequestSummary,
    timeoutMs: number,
  ): Promise<Exchange> {
    const turn = this.#lastTry.then(async () => {
      if (!this.#storeEmpty) await this.#context.clearCookies();
      this.#storeEmpty = false;
      return this.#send(url, headers, request, timeoutMs);
    });
    this.#lastTry = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
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
      // Whole, and without Set-Cookie: the store is as empty as before the request.
      this.#storeEmpty = !('set-cookie' in response.headers());
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

/**
 * Every field the request puts on the wire, in the order it goes: the three Playwright sets
 * first (User-Agent, Accept, Accept-Encoding; a field of the rule's with the same name takes
 * that place and keeps Playwright's lower-case name, as Playwright does), then the rule's, then
 * Host and Connection, which Node would otherwise add unseen.
 */
export function wireFields(url: string, given: Record<string, string>): [string, string][] {
  const fields: [string, string][] = [
    ['user-agent', nextUserAgent()],
    ['accept', '*/*'],
    ['accept-encoding', 'gzip,deflate,br'],
  ];
  const set = (name: string, value: string): void => {
    const same = fields.find(([existing]) => existing.toLowerCase() === name.toLowerCase());
    if (same) same[1] = value;
    else fields.push([name, value]);
  };
  for (const [name, value] of Object.entries(given)) set(name, value);
  const named = (name: string): boolean => fields.some(([existing]) => existing.toLowerCase() === name);
  if (!named('host')) fields.push(['Host', new URL(url).host]);
  if (!named('connection')) fields.push(['Connection', 'keep-alive']);
  return fields;
}
