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
const USUAL_SCHEME = 'Bearer';
const USUAL_BEARER = `${USUAL_SCHEME} `;
const SPACE = 0x20;

/**
 * @param values every `Authorization` field line of the request (`fieldLines`, since `headers`
 *   silently keeps only the first of a duplicated header).
 */
export function parseAuthorization(values: readonly string[] | undefined): AuthorizationHeader {
  if (values === undefined || values.length === 0) return { kind: 'missing' };
  if (values.length > 1) return { kind: 'duplicate' };
  const value = values[0] ?? '';
  if (value === '') return { kind: 'missing' };

  // `Bearer ` as clients spell it ends the scheme where the expression would (a space is no
  // token character), so the usual header skips the expression.
  const scheme = value.startsWith(USUAL_BEARER) ? USUAL_SCHEME : AUTH_SCHEME.exec(value)?.[0];
  if (scheme === undefined || (scheme !== USUAL_SCHEME && scheme.toLowerCase() !== BEARER))
    return { kind: 'not-bearer' };

  // Exactly one or more spaces (never a tab) separate the scheme from the token.
  let start = scheme.length;
  while (value.charCodeAt(start) === SPACE) start += 1;
  const token = value.slice(start);
  if (start === scheme.length || !TOKEN68.test(token)) return { kind: 'malformed' };
  return { kind: 'bearer', token };
}
