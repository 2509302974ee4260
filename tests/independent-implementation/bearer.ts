// Reading `Authorization: Bearer <key>` (spec §5 Scheme; RFC 6750 §2.1). Every Authorization
// line of the request is looked at, not only the first one Node keeps in `headers`.

export type Presented =
  | { kind: 'absent' }
  /** More than one Authorization header: which one is meant cannot be known. */
  | { kind: 'ambiguous' }
  /** Another scheme (`Basic …`, `Token …`) or none (a bare key). */
  | { kind: 'other-scheme' }
  /** Bearer, but not followed by one token68: empty, quoted, spaces, parameters. */
  | { kind: 'malformed' }
  | { kind: 'key'; key: string };

/** RFC 6750 §2.1 b64token: quotes, spaces, commas and tabs are not part of it. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * `schemeCaseInsensitive`: RFC 9110 §11.1 makes `bearer` and `BEARER` the same scheme; a
 * deployment may still accept only `Bearer` (the suite warns, nothing more).
 */
export function presentedKey(
  authorizationLines: readonly string[] | undefined,
  schemeCaseInsensitive = true,
  lenientSyntax = false,
): Presented {
  if (!authorizationLines || authorizationLines.length === 0) return { kind: 'absent' };
  if (authorizationLines.length > 1) return { kind: 'ambiguous' };
  const value = authorizationLines[0] ?? '';
  if (value === '') return { kind: 'absent' };
  const space = value.indexOf(' ');
  const scheme = space === -1 ? value : value.slice(0, space);
  const token = space === -1 ? '' : value.slice(space + 1);
  const isBearer = schemeCaseInsensitive ? scheme.toLowerCase() === 'bearer' : scheme === 'Bearer';
  // The lenient parser of many frameworks (split on whitespace, the first token counts): a tab,
  // parameters or a second token after the key are let through (RFC 6750 §2.1 allows none).
  const loose = lenientSyntax ? /^bearer\s+([A-Za-z0-9\-._~+/]+=*)(?:[\s,]|$)/i.exec(value)?.[1] : undefined;
  if (loose !== undefined) return { kind: 'key', key: loose };
  // `Bearer\tKEY` has no space: its "scheme" is the whole value, and it is no Bearer token.
  if (!isBearer) return /^bearer\s/i.test(value) ? { kind: 'malformed' } : { kind: 'other-scheme' };
  // The key itself is case-sensitive and never unquoted.
  if (!TOKEN68.test(token)) return { kind: 'malformed' };
  return { kind: 'key', key: token };
}
