// The registry's client, as `registry publish`, `can-i-ship` and `diff` use it: HTTPS through
// undici, trusting the system's CAs plus the one given (--ca-file, e.g. the kit's local CA), with
// the token from a file or the environment — never from the command line, where `ps` shows it.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import { createRequire } from 'node:module';

/**
 * undici, loaded when a client is made (CommonJS, so synchronously): `run` imports this module for
 * --publish, and its 110 modules cost every run, --help and usage error that publishes nothing.
 */
const loadUndici = (): typeof import('undici') =>
  createRequire(import.meta.url)('undici') as typeof import('undici');

export const TOKEN_VARIABLE = 'TENANT_AUTH_REGISTRY_TOKEN';

export class RegistryUnreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryUnreachable';
  }
}

/**
 * The registry was reached, but its certificate is not one the client trusts: its own message,
 * naming the CA option, since "cannot be reached" would send the user looking at the network.
 * Still exit 3 (a registry the client cannot use), as RegistryUnreachable.
 */
export class RegistryUntrusted extends RegistryUnreachable {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryUntrusted';
  }
}

/** The TLS error codes (Node's, from OpenSSL) that say the certificate chain is not trusted. */
const UNTRUSTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** What the client says when a request did not get an answer: untrusted, or not reached. */
export function unreachableError(base: string, error: unknown, caOption = '--ca-file'): RegistryUnreachable {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? cause?.message ?? (error as Error).message;
  if (cause?.code !== undefined && UNTRUSTED_CODES.has(cause.code))
    return new RegistryUntrusted(
      `Cannot trust the registry's certificate at ${base} (${cause.code}): give the CA that signed it with ${caOption} FILE — for a registry serving the kit's own certificate, the CA its banner names (\`CA: .certs/ca.crt\` by default).`,
    );
  return new RegistryUnreachable(`Cannot reach the registry at ${base}: ${code}.`);
}

export interface RegistryAnswer {
  status: number;
  json: unknown;
  /** Seconds the registry asks to wait (Retry-After), when it says. */
  retryAfter?: number;
}

/** How many times a publish is sent to a registry that answers 503 (busy) each time. */
const PUBLISH_ATTEMPTS = 5;

/** A body as text, or made afresh for each attempt a piece at a time (uploadPieces: a bundle). */
export type RequestBody = string | (() => Iterable<Buffer>);

export interface RegistryClient {
  get(path: string): Promise<RegistryAnswer>;
  post(path: string, body: RequestBody): Promise<RegistryAnswer>;
  close(): Promise<void>;
}

export function readToken(tokenFile: string | undefined): string | undefined {
  if (tokenFile !== undefined) return readFileSync(tokenFile, 'utf8').trim();
  const fromEnvironment = process.env[TOKEN_VARIABLE]?.trim();
  return fromEnvironment === '' ? undefined : fromEnvironment;
}

export function registryClient(
  base: string,
  options: { caFile?: string; token?: string; caOption?: string },
): RegistryClient {
  const ca =
    options.caFile !== undefined ? [...rootCertificates, readFileSync(options.caFile, 'utf8')] : undefined;
  const { Agent, fetch } = loadUndici();
  const dispatcher = new Agent({ connect: ca ? { ca } : {} });
  const call = async (method: string, path: string, body?: RequestBody): Promise<RegistryAnswer> => {
    let response;
    try {
      response = await fetch(new URL(path, base), {
        method,
        dispatcher,
        headers: {
          accept: 'application/json',
          ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        // A streamed body is sent as it is read (chunked), never whole in memory.
        ...(typeof body === 'function' ? { body: Readable.from(body()), duplex: 'half' as const } : {}),
        ...(typeof body === 'string' ? { body } : {}),
      });
    } catch (error) {
      throw unreachableError(base, error, options.caOption);
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new RegistryUnreachable(
        `${base} answered ${response.status} with something other than JSON: is it a registry?`,
      );
    }
    const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
    return {
      status: response.status,
      json,
      ...(Number.isInteger(retryAfter) && retryAfter >= 0 ? { retryAfter } : {}),
    };
  };
  // A registry at its bound of uploads answers 503 with Retry-After before reading the body: the
  // publish is sent again after the wait it asks (at most 30 s), a bounded number of times.
  const post = async (path: string, body: RequestBody): Promise<RegistryAnswer> => {
    for (let attempt = 1; ; attempt++) {
      const answer = await call('POST', path, body);
      if (answer.status !== 503 || attempt >= PUBLISH_ATTEMPTS || answer.retryAfter === undefined)
        return answer;
      await new Promise((resolve) => setTimeout(resolve, Math.min(answer.retryAfter ?? 1, 30) * 1000));
    }
  };
  return {
    get: (path) => call('GET', path),
    post,
    close: () => dispatcher.close(),
  };
}

/** The message of an error answer. */
export function errorMessage(answer: RegistryAnswer): string {
  const error = (answer.json as { error?: { code?: string; message?: string } } | null)?.error;
  return error ? `${error.message ?? ''} (${answer.status} ${error.code ?? ''})` : `status ${answer.status}`;
}
