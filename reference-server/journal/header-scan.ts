// One pass over a request's header lines for what the client journal records of every request:
// the user agent, the media types, whether a body is announced, and any tenant id header. It reads
// `rawHeaders` as the pipeline does (building `req.headers` would cost more than the scan), and
// compares a name only when its length fits, so that a usual request costs a few comparisons. The
// facts are written into the caller's object (the journal's slot), not into a new one.
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { overHttp2 } from '../http/field-lines.ts';
import type { JournalEntry } from '../../schemas/generated/journal.ts';

export interface HeaderFacts {
  userAgent: string | undefined;
  contentType: JournalEntry['contentType'];
  accept: JournalEntry['accept'];
  hasBody: boolean;
  tenantFields: string[] | undefined;
  /** Whether an Idempotency-Key came with it: what makes a retry of a POST safe. */
  idempotencyKey: true | undefined;
}

/** Longer user agents are cut: the journal is bounded in bytes too. */
const MAX_USER_AGENT = 200;
/** `tenant_id`, `company_id`, `organization_id` (spec §5 Tenant identification 3) as header names. */
export const TENANT_HEADER = /^(?:x[-_])?(?:tenant|company|organization)[-_]id$/i;
/** Something in a user agent that could be a key: it is not kept. */
const LONG_RUN = 32;
const KEY_LIKE = /mbk_[A-Za-z0-9_]*|[A-Za-z0-9]{32,}/g;

export function scanHeaders(req: IncomingMessage, into: HeaderFacts): void {
  const raw = req.rawHeaders;
  let userAgent: string | undefined;
  let contentType: string | undefined;
  let accept: string | undefined;
  let hasBody = false;
  let tenantFields: string[] | undefined;
  let idempotencyKey: true | undefined;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index] as string;
    // A name of a field read here `continue`s; any other name, of any length (`Company-Id` is as
    // long as `User-Agent`), goes on to the tenant id check.
    switch (name.length) {
      case 6:
        if (named(name, 'accept', 'Accept')) {
          accept = raw[index + 1];
          continue;
        }
        break;
      case 10:
        if (named(name, 'user-agent', 'User-Agent')) {
          userAgent = raw[index + 1];
          continue;
        }
        break;
      case 12:
        if (named(name, 'content-type', 'Content-Type')) {
          contentType = raw[index + 1];
          continue;
        }
        break;
      case 14:
        if (named(name, 'content-length', 'Content-Length')) {
          hasBody ||= (raw[index + 1] ?? '').trim() !== '0';
          continue;
        }
        break;
      case 15:
        if (named(name, 'idempotency-key', 'Idempotency-Key')) {
          idempotencyKey = true;
          continue;
        }
        break;
      case 17:
        if (named(name, 'transfer-encoding', 'Transfer-Encoding')) {
          hasBody = true;
          continue;
        }
        break;
    }
    if (mayNameATenantField(name) && TENANT_HEADER.test(name)) {
      (tenantFields ??= []).push(`header:${name.toLowerCase()}`);
    }
  }
  into.userAgent = userAgent === undefined ? undefined : safeUserAgent(userAgent);
  into.contentType = mediaKind(contentType, false);
  into.accept = mediaKind(accept, true);
  // HTTP/2 announces a body by not ending the stream with its headers (RFC 9113 §8.1), with or
  // without a content-length.
  into.hasBody = hasBody || http2BodyFollows(req);
  into.tenantFields = tenantFields;
  into.idempotencyKey = idempotencyKey;
}

/**
 * A cheap first look, so that the regular expression runs rarely (`X-Request-Id` is common): a
 * tenant field's name ends in `d` and its word, after an optional `x-`/`x_`, starts with `t`, `c`
 * or `o`, in either case. The expression decides.
 */
function mayNameATenantField(name: string): boolean {
  if ((name.charCodeAt(name.length - 1) | 0x20) !== 0x64) return false;
  const separator = name.charCodeAt(1);
  const prefixed = (name.charCodeAt(0) | 0x20) === 0x78 && (separator === 0x2d || separator === 0x5f);
  const initial = name.charCodeAt(prefixed ? 2 : 0) | 0x20;
  return initial === 0x74 || initial === 0x63 || initial === 0x6f;
}

/** Whether a header name is `lower` in any letter case; the two usual spellings cost no copy. */
function named(name: string, lower: string, capitalised: string): boolean {
  return name === lower || name === capitalised || name.toLowerCase() === lower;
}

function safeUserAgent(value: string): string {
  const cut = value.length > MAX_USER_AGENT ? value.slice(0, MAX_USER_AGENT) : value;
  // The regular expression is slow on every request; a loop finds most user agents clean first.
  return cut.includes('mbk_') || hasLongAlphanumericRun(cut) ? cut.replace(KEY_LIKE, '[redacted]') : cut;
}

function hasLongAlphanumericRun(text: string): boolean {
  let run = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const alphanumeric = (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122);
    run = alphanumeric ? run + 1 : 0;
    if (run >= LONG_RUN) return true;
  }
  return false;
}

/**
 * `json` when the field names application/json: as the media type of a body, or (for `Accept`,
 * a list of media ranges) as one of the ranges.
 */
function mediaKind(value: string | undefined, isList: boolean): JournalEntry['contentType'] {
  if (value === undefined) return 'missing';
  if (value === 'application/json') return 'json';
  const ranges = isList ? value.split(',') : [value];
  return ranges.some((range) => (range.split(';', 1)[0] ?? '').trim().toLowerCase() === 'application/json')
    ? 'json'
    : 'other';
}

function http2BodyFollows(req: IncomingMessage): boolean {
  return overHttp2(req) && (req as unknown as Http2ServerRequest).stream.endAfterHeaders === false;
}
