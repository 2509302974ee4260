// How the journal names the key a request presented, without keeping it: the key's id when the
// key store knows it in the host's tenant (in either environment, revoked or not), or "unknown
// key" with a fingerprint — a truncated keyed SHA-256 under a secret of this process, the same
// for the same key while the process runs, and not reversible. The entry keeps the key's plain
// SHA-256 (the digest the key store looks keys up by, already computed to identify it) and the
// fingerprint is made from it when the journal is read, so that recording a request costs one
// digest, not two. Naming a key never authenticates a request:
// the answer was decided before, by the pipeline (or, on plain HTTP, is always a rejection).
import * as crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { JournalEntry } from '../../schemas/generated/journal.ts';
import type { KeyStore } from '../store/api-keys.ts';
import { secretDigest } from '../store/key-digest.ts';
import { parseAuthorization, type AuthorizationHeader } from '../http/authorization-header.ts';
import { fieldLines } from '../http/field-lines.ts';
import type { Environment } from '../http/hosts.ts';

export const UNKNOWN_KEY = 'unknown key';

/**
 * SHA-256 of a per-process secret followed by the key: as one-way as an HMAC for a fingerprint
 * (nothing is authenticated with it), and one call instead of an Hmac object per unknown key.
 */
const keyedDigest: (secret: string, token: string) => string =
  typeof crypto.hash === 'function'
    ? (secret, token) => crypto.hash('sha256', `${secret}${token}`, 'hex')
    : (secret, token) => crypto.createHmac('sha256', secret).update(token).digest('hex');
const FINGERPRINT_HEX_LENGTH = 12;
const QUOTED_BEARER = /^[^ ]+ +(["'])([^"']*)\1 *$/;

export interface PresentedCredential {
  authorization: JournalEntry['authorization'];
  /** What stood where the key belongs, to name it; undefined when there was nothing to name. */
  token: string | undefined;
}

/**
 * The `Authorization` header as the journal describes it: the kind, and the key to name.
 * @param read the header as the pipeline read it (`RequestFacts.authorization`), if it did.
 */
export function presentedCredential(req: IncomingMessage, read?: AuthorizationHeader): PresentedCredential {
  const parsed = read ?? parseAuthorization(fieldLines(req, 'authorization'));
  switch (parsed.kind) {
    case 'bearer':
      return { authorization: 'bearer', token: parsed.token };
    case 'missing':
      return { authorization: 'missing', token: undefined };
    case 'duplicate':
      // Which line counts is ambiguous, so the server used neither; the client is still named by
      // the key it sent (most send the same one twice), not as a client without a key.
      return { authorization: 'duplicate', token: firstBearerToken(fieldLines(req, 'authorization')) };
  }
  // Not read as a Bearer credential: what stood where the key belongs, from the one header line.
  const value = fieldLines(req, 'authorization')[0] ?? '';
  switch (parsed.kind) {
    case 'not-bearer': {
      // `Basic …`, `Token …`, or a bare key.
      const space = value.indexOf(' ');
      return { authorization: 'other-scheme', token: space === -1 ? value : value.slice(space + 1).trim() };
    }
    case 'malformed': {
      const quoted = QUOTED_BEARER.exec(value);
      if (quoted) return { authorization: 'quoted', token: quoted[2] };
      // `Bearer K, Bearer K`: two credentials joined into one line, as an HTTP/2 client (or a
      // proxy) folds two values of a field. The key is the one the credentials carry, not the text
      // after the first `Bearer`.
      const folded = foldedBearerTokens(value);
      if (folded) return { authorization: 'folded', token: folded[0] };
      return { authorization: 'malformed', token: value.replace(/^[^ \t]+[ \t]*/, '').trim() || undefined };
    }
  }
}

/** The token of the first of `lines` that is a well-formed Bearer credential, if any is. */
function firstBearerToken(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    const parsed = parseAuthorization([line]);
    if (parsed.kind === 'bearer') return parsed.token;
  }
  return undefined;
}

/** The tokens of a line that is two or more Bearer credentials joined by commas; undefined otherwise. */
function foldedBearerTokens(value: string): string[] | undefined {
  if (!value.includes(',')) return undefined;
  const tokens: string[] = [];
  for (const part of value.split(',')) {
    const parsed = parseAuthorization([part.trim()]);
    if (parsed.kind !== 'bearer') return undefined;
    tokens.push(parsed.token);
  }
  return tokens;
}

export interface NamedKey {
  key: string;
  /** The SHA-256 of an unknown key (`secretDigest`), for its fingerprint (`KeyNamer.fingerprint`). */
  keyDigest: string | undefined;
  keyEnvironment: Environment | undefined;
  keyRevoked: boolean | undefined;
}

export class KeyNamer {
  readonly #secret = crypto.randomBytes(32).toString('hex');
  readonly #keys: KeyStore;

  constructor(keys: KeyStore) {
    this.#keys = keys;
  }

  /** @param scope the tenant and environment of the request's host, when it names one. */
  name(token: string, scope: { tenant: string; environment: Environment } | undefined): NamedKey {
    const digest = secretDigest(token);
    if (scope) {
      const known = this.#keys.identify(scope.tenant, token, digest);
      if (known) {
        return {
          key: known.id,
          keyDigest: undefined,
          keyEnvironment: known.environment,
          keyRevoked: known.revoked,
        };
      }
    }
    return {
      key: UNKNOWN_KEY,
      keyDigest: digest,
      keyEnvironment: environmentByPrefix(token),
      keyRevoked: undefined,
    };
  }

  /** The fingerprint of an unknown key, from its digest (`NamedKey.keyDigest`). */
  fingerprint(keyDigest: string): string {
    return keyedDigest(this.#secret, keyDigest).slice(0, FINGERPRINT_HEX_LENGTH);
  }
}

/** The reference's key format tells the environment: `mbk_dev_` sandbox, `mbk_prod_` production. */
function environmentByPrefix(token: string): Environment | undefined {
  if (token.startsWith('mbk_dev_')) return 'sandbox';
  if (token.startsWith('mbk_prod_')) return 'production';
  return undefined;
}
