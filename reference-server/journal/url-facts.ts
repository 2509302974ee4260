// What a request target tells of a client, for the journal: where it carried a credential (a
// query parameter, a path segment, userinfo) and which tenant id fields it put in the query. Only
// names from a fixed list are kept, never a value: a parameter name could itself be a key.
import { loggablePath } from '../http/access-log.ts';

export interface UrlFacts {
  path: string;
  urlCredentials: string[] | undefined;
  tenantFields: string[] | undefined;
  /** A key-like value found in the URL, to name the key (never to authenticate with it). */
  presentedKey: string | undefined;
}

/** Query parameters that carry a credential in common APIs. */
const CREDENTIAL_PARAMETERS = new Set([
  'access_token',
  'api_key',
  'apikey',
  'api-key',
  'key',
  'token',
  'auth',
]);
const TENANT_PARAMETERS = new Set(['tenant_id', 'company_id', 'organization_id']);
/** The reference's key format, anywhere: a value with it is a credential whatever its name. */
const KEY_PREFIX = /mbk_/i;
/** A path segment long enough to be a key's random part without its prefix. */
const LONG_TOKEN = /^[A-Za-z0-9\-._~+/]{24,}=*$/;
/** A request target in absolute form (RFC 9112 §3.2.2): a scheme, then `//`. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

export function urlFacts(target: string): UrlFacts {
  const queryStart = target.search(/[?#]/);
  const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
  const query = queryStart === -1 ? '' : target.slice(queryStart + 1).split('#', 1)[0];
  const urlCredentials: string[] = [];
  const tenantFields: string[] = [];
  let presentedKey: string | undefined;

  let pathOnly = rawPath;
  // Only a target with a scheme is a URL: a CONNECT request's `host:port` (authority form) would
  // parse as scheme `host:` and path `port`.
  if (ABSOLUTE_FORM.test(rawPath)) {
    // Absolute form (`GET https://user:key@host/v1/…`): the userinfo is a credential.
    try {
      const url = new URL(rawPath);
      if (url.username !== '' || url.password !== '') {
        urlCredentials.push('userinfo');
        presentedKey = decodeURIComponent(url.password || url.username);
      }
      pathOnly = url.pathname;
    } catch {
      // Not a URL: judged as a path.
    }
  }
  for (const segment of pathOnly.split('/')) {
    const decoded = safeDecode(segment);
    if (KEY_PREFIX.test(decoded) || LONG_TOKEN.test(decoded)) {
      if (!urlCredentials.includes('path')) urlCredentials.push('path');
      presentedKey ??= decoded;
    }
  }
  for (const [name, value] of new URLSearchParams(query ?? '')) {
    const lower = name.toLowerCase();
    if (CREDENTIAL_PARAMETERS.has(lower) || KEY_PREFIX.test(value)) {
      urlCredentials.push(`query:${CREDENTIAL_PARAMETERS.has(lower) ? lower : '[redacted]'}`);
      if (value !== '') presentedKey ??= value;
    }
    if (TENANT_PARAMETERS.has(lower)) tenantFields.push(`query:${lower}`);
  }
  return {
    path: loggablePath(target.startsWith('/') ? target : pathOnly),
    urlCredentials: urlCredentials.length > 0 ? urlCredentials : undefined,
    tenantFields: tenantFields.length > 0 ? tenantFields : undefined,
    presentedKey,
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
