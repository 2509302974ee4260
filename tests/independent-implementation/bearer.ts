// Reading `Authorization: Bearer <key>` (spec §5 Scheme; RFC 6750 §2.1). Every Authorization
// line of the request is looked at, not only the first one Node keeps in `headers`.

export type Presented =
  | { kind: 'absent' }
  /** More than one Authorization header: which one is meant cannot be known. */
  | { kind: 'ambiguous' }
  /** A header that is not `Bearer <token68>`: another scheme, quotes, spaces, parameters. */
  | { kind: 'malformed' }
  | { kind: 'key'; key: string };

/** RFC 6750 §2.1 b64token: quotes, spaces, commas and tabs are not part of it. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export function presentedKey(authorizationLines: readonly string[] | undefined): Presented {
  if (!authorizationLines || authorizationLines.length === 0) return { kind: 'absent' };
  if (authorizationLines.length > 1) return { kind: 'ambiguous' };
  const value = authorizationLines[0] ?? '';
  if (value === '') return { kind: 'absent' };
  const space = value.indexOf(' ');
  const scheme = space === -1 ? value : value.slice(0, space);
  const token = space === -1 ? '' : value.slice(space + 1);
  // The scheme name is case-insensitive (RFC 9110 §11.1); the key itself is not.
  if (scheme.toLowerCase() !== 'bearer' || !TOKEN68.test(token)) return { kind: 'malformed' };
  return { kind: 'key', key: token };
}
