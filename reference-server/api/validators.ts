// Validators of a served answer (RFC 9110 §8.8.3): every 200 the API serves carries an ETag made
// from its tenant, its environment and its body, so that no two tenants ever share one (a shared
// validator would let a conditional request tell which tenants exist). A request whose
// If-None-Match lists it gets 304 Not Modified — but only here, after the key has been checked:
// a request refused at any step never reaches this, so a 304 never confirms a copy to a request
// without a valid key (RFC 9110 §13.2.1; docs/decisions.md, conditional requests).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ApiResponse } from '../http/errors.ts';
import type { ApiHost } from '../http/hosts.ts';

/** The answer with its ETag, or 304 when the request's If-None-Match already holds it. */
export function validated(req: IncomingMessage, host: ApiHost, answer: ApiResponse): ApiResponse {
  if (answer.status !== 200) return answer;
  const tagged = withEtag(host, answer);
  const etag = tagged.headers.ETag ?? '';
  return noneMatchLists(req.headers['if-none-match'], etag)
    ? { status: 304, headers: { ETag: etag }, body: undefined }
    : tagged;
}

/** A frozen answer (one tenant's whole list) is tagged once, as it is serialised once. */
const TAGGED = new WeakMap<ApiResponse, ApiResponse>();

function withEtag(host: ApiHost, answer: ApiResponse): ApiResponse {
  const known = TAGGED.get(answer);
  if (known) return known;
  const digest = createHash('sha256')
    .update(`${host.tenant}\n${host.environment}\n${JSON.stringify(answer.body)}`)
    .digest('base64url')
    .slice(0, 27);
  const tagged: ApiResponse = { ...answer, headers: { ...answer.headers, ETag: `"${digest}"` } };
  if (!Object.isFrozen(answer)) return tagged;
  Object.freeze(tagged.headers);
  TAGGED.set(answer, Object.freeze(tagged));
  return tagged;
}

/** If-None-Match's weak comparison (RFC 9110 §13.1.2): `*`, or any listed tag, W/ or not. */
function noneMatchLists(field: string | undefined, etag: string): boolean {
  if (field === undefined) return false;
  if (field.trim() === '*') return true;
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  return field.split(',').some((tag) => opaque(tag) === opaque(etag));
}
