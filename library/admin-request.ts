// The mock's own calls of its admin API (mint, revoke, journal) over node:https and the mock's
// https Agent, not undici: undici costs a test file about 150 ms of CPU to load, which a test
// that never touches `mock.fetch` or `mock.dispatcher` should not pay.
import { request, type Agent } from 'node:https';

/** One call of the admin API: its JSON answer, undefined for an empty body; throws on a non-2xx answer. */
export type AdminRequest = (method: string, path: string, body?: object) => Promise<unknown>;

export function adminRequester(adminUrl: string, token: string, agent: Agent): AdminRequest {
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const sent = request(
        `${adminUrl}${path}`,
        {
          method,
          agent,
          headers: {
            Authorization: `Bearer ${token}`,
            Accept: 'application/json',
            ...(payload === undefined
              ? {}
              : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('error', reject);
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            if (status < 200 || status > 299) {
              const code = /"code"\s*:\s*"([a-z_]+)"/.exec(text)?.[1] ?? 'no error code';
              // The admin API's messages never hold a key; they say what was wrong with the call.
              const message = errorMessageOf(text);
              reject(
                new Error(
                  `The reference server's admin API answered ${method} ${path} with ${status} ${code}${message === undefined ? '' : `: ${message}`}`,
                ),
              );
              return;
            }
            try {
              resolve(text === '' ? undefined : (JSON.parse(text) as unknown));
            } catch {
              reject(
                new Error(
                  `The reference server's admin API answered ${method} ${path} with a body that is not JSON.`,
                ),
              );
            }
          });
        },
      );
      sent.on('error', reject);
      sent.end(payload);
    });
}

function errorMessageOf(text: string): string | undefined {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}
