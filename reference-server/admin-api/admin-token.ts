// The admin API's credential: one bearer token, unrelated to API keys. It comes from
// REFERENCE_ADMIN_TOKEN, or else from `admin-token` in the data directory (created on first
// start, mode 0600). It is compared as a SHA-256 digest in constant time and never printed.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { parseAuthorization, TOKEN68 } from '../http/authorization-header.ts';
import { fieldLines } from '../http/field-lines.ts';
import { readOrCreateSecretFile } from '../store/data-dir.ts';

export const ADMIN_TOKEN_FILE = 'admin-token';
export const ADMIN_TOKEN_ENV = 'REFERENCE_ADMIN_TOKEN';
/** A token shorter than this is refused: it could be guessed. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

export type AdminTokenSource = { kind: 'env' } | { kind: 'file'; path: string } | { kind: 'none' };

/** Why a configured admin token cannot be used. */
export class AdminTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminTokenError';
  }
}

/**
 * The admin token and where it came from. With neither the variable nor a data directory there is
 * no token, and the admin API answers that it is off.
 */
export function resolveAdminToken(
  fromEnv: string | undefined,
  dataDir: string | null,
): { token: string | undefined; source: AdminTokenSource } {
  if (fromEnv !== undefined && fromEnv !== '') {
    return { token: usable(fromEnv, ADMIN_TOKEN_ENV), source: { kind: 'env' } };
  }
  if (dataDir === null) return { token: undefined, source: { kind: 'none' } };
  const path = join(dataDir, ADMIN_TOKEN_FILE);
  const token = readOrCreateSecretFile(
    dataDir,
    ADMIN_TOKEN_FILE,
    () => `mba_${randomBytes(32).toString('base64url')}`,
  );
  return { token: usable(token, path), source: { kind: 'file', path } };
}

function usable(token: string, where: string): string {
  if (token.length < MIN_ADMIN_TOKEN_LENGTH || !TOKEN68.test(token)) {
    throw new AdminTokenError(
      `The admin token in ${where} must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + /. ` +
        `Generate one with: openssl rand -base64 32`,
    );
  }
  return token;
}

/** Checks presented admin tokens against the configured one without revealing, by timing, how much matched. */
export class AdminTokenCheck {
  readonly #digest: Buffer;

  constructor(token: string) {
    this.#digest = sha256(token);
  }

  matches(presented: string): boolean {
    return timingSafeEqual(sha256(presented), this.#digest);
  }

  /** Whether the request's one `Authorization` header is `Bearer` and this token. */
  presentedBy(req: IncomingMessage): boolean {
    const authorization = parseAuthorization(fieldLines(req, 'authorization'));
    return authorization.kind === 'bearer' && this.matches(authorization.token);
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
