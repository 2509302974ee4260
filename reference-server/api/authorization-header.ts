// Reads the `Authorization` header (spec §5 "Scheme"): exactly one header, the Bearer scheme,
// and the key as a bare RFC 6750 token68 — never unquoted, trimmed of quotes or otherwise repaired.

export type AuthorizationHeader =
  /** No header, or an empty one: `missing_authorization_header`. */
  | { kind: 'missing' }
  /** Another scheme (`Basic …`) or a bare key: the request carries no Bearer credential. */
  | { kind: 'not-bearer' }
  /** More than one `Authorization` header: which one counts is ambiguous, so neither does. */
  | { kind: 'duplicate' }
  /** Bearer with an empty, quoted, spaced or otherwise malformed token. */
  | { kind: 'malformed' }
  | { kind: 'bearer'; token: string };

/** RFC 9110 §5.6.2 token: the auth-scheme. */
const AUTH_SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
/** RFC 6750 §2.1 b64token (token68 of RFC 9110 §11.2). Quotes, commas and spaces are outside it. */
export const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
/** RFC 9110 §11.1: the scheme name is case-insensitive, so `bearer` and `BEARER` are Bearer. */
const BEARER = 'bearer';

/**
 * @param values every `Authorization` field line of the request (`fieldLines`, since `headers`
 *   silently keeps only the first of a duplicated header).
 */
export function parseAuthorization(values: readonly string[] | undefined): AuthorizationHeader {
  if (values === undefined || values.length === 0) return { kind: 'missing' };
  if (values.length > 1) return { kind: 'duplicate' };
  const value = values[0] ?? '';
  if (value === '') return { kind: 'missing' };

  const scheme = AUTH_SCHEME.exec(value)?.[0];
  if (scheme === undefined || scheme.toLowerCase() !== BEARER) return { kind: 'not-bearer' };

  // Exactly one or more spaces (never a tab) separate the scheme from the token.
  const separatorAndToken = value.slice(scheme.length);
  const token = separatorAndToken.replace(/^ +/, '');
  if (token === separatorAndToken || !TOKEN68.test(token)) return { kind: 'malformed' };
  return { kind: 'bearer', token };
}
