// One attempt at a delivery: a POST of the stored body, signed, to the webhook's URL, over https
// with the system's CAs and those the operator added (`--webhook-ca`), never following a redirect,
// bounded in time. What is kept of it is the status or a short reason — never the secret, nor the
// endpoint's answer.
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { DELIVERY_HEADER, EVENT_HEADER, EVENT_ID_HEADER, signature, SIGNATURE_HEADER } from './sign.ts';
import type { Claimed } from './store.ts';

export type AttemptResult = { status: number } | { error: string };

/** The most of an answer's body read (and dropped): an endpoint may not hold the worker. */
const MAX_ANSWER_BYTES = 64 * 1024;

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
  EHOSTUNREACH: 'the host is unreachable',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed and not trusted (--webhook-ca)',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a CA this registry does not trust (--webhook-ca)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate is not from a CA this registry trusts (--webhook-ca)',
  ERR_TLS_CERT_ALTNAME_INVALID: "its certificate does not name the URL's host",
  CERT_HAS_EXPIRED: 'its certificate has expired',
};

export function attemptDelivery(
  claimed: Claimed,
  options: { trustedCas: readonly string[]; timeoutMs: number; signal: AbortSignal },
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: AttemptResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const outgoing = request(
      claimed.url,
      {
        method: 'POST',
        agent: false,
        ...(options.trustedCas.length > 0 ? { ca: [...rootCertificates, ...options.trustedCas] } : {}),
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'tenant-auth-conformance-registry',
          [EVENT_HEADER]: claimed.event,
          [EVENT_ID_HEADER]: claimed.eventId,
          [DELIVERY_HEADER]: claimed.deliveryId,
          [SIGNATURE_HEADER]: signature(claimed.secret, claimed.body),
          'Content-Length': String(Buffer.byteLength(claimed.body)),
        },
        signal: options.signal,
      },
      (answer) => {
        let read = 0;
        answer.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) answer.destroy();
        });
        // The status is what counts: it is known now, whatever the body does.
        done({ status: answer.statusCode ?? 0 });
        answer.on('error', () => undefined);
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy();
      done({ error: `no answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (options.signal.aborted) return done({ error: 'the registry stopped during the attempt' });
      const code = error.code ?? 'error';
      done({ error: `${REASONS[code] ?? 'the request failed'} (${code})` });
    });
    outgoing.end(claimed.body);
  });
}
