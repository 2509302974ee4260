// The API client's `get` over the raw client: how the rules' ordinary requests travel over
// HTTP/2, which Playwright's request context does not speak. The same default fields as
// ApiClient's, so that a rule sends the same request whichever protocol carries it.
import type { Api, GetOptions } from './api-client.ts';
import type { Exchange } from './exchange.ts';
import type { RawClient } from './raw-client.ts';

export class RawApi implements Api {
  readonly #raw: RawClient;

  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  get(url: string, options: GetOptions = {}): Promise<Exchange> {
    const headers = { Accept: 'application/json', 'Content-Type': 'application/json', ...options.headers };
    return this.#raw.send({
      url,
      headers: Object.entries(headers),
      ...(options.note !== undefined ? { note: options.note } : {}),
      ...(options.refusalExpected ? { refusalExpected: true } : {}),
    });
  }
}
