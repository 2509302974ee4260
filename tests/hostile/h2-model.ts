// The fuzz model over HTTP/2: a fuzz request (fuzz-model.ts, written as HTTP/1.1 text) as the same
// request in HTTP/2's terms, and what its answer may be. Its one `Host` line becomes `:authority`
// (several become `host` fields); other names are lower-cased, as HTTP/2 wants them; the request
// line becomes `:method` and `:path`. A request HTTP/2 carries as it is keeps the expectation the
// model gives over HTTP/1.1. One it does not — a value HTTP/2 forbids (RFC 9113 §8.2.1: control
// bytes, leading or trailing white space), bytes outside ASCII, no single clean authority, an
// unusual method or path — may be reset as malformed (PROTOCOL_ERROR), or answered without the
// field nghttp2 drops; either way it may get data only of its own SNI host, and only with a
// valid key of that host in an Authorization field.
import { constants } from 'node:http2';
import {
  REJECTED,
  hostOf,
  render,
  redactSecrets,
  type Expectation,
  type FixtureKnowledge,
  type FuzzRequest,
} from './fuzz-model.ts';
import type { RawOutcome } from './raw-tls-connection.ts';
import { problemsWith } from './response-invariants.ts';
import type { Field, H2Outcome } from './h2-session.ts';

/** HPACK's count of a header list (RFC 9113 §6.5.2): name, value and 32 bytes a field. */
const FIELD_OVERHEAD = 32;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** Visible ASCII, with spaces and tabs only inside (RFC 9110 §5.5, RFC 9113 §8.2.1). */
const CLEAN_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?)?$/;
/**
 * A value nghttp2 drops with its field (the request goes on without it): a control byte, or white
 * space at either end (RFC 9113 §8.2.1; nghttp2_check_header_value_rfc9113).
 */
// eslint-disable-next-line no-control-regex -- control bytes are what it finds.
const DROPPED_VALUE = /[\x00-\x08\x0a-\x1f\x7f]|^[ \t]|[ \t]$/;
const CLEAN_PATH = /^\/[\x21-\x7e]*$/;
const CLEAN_AUTHORITY = /^[A-Za-z0-9.:[\]-]+$/;
const PLAIN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'M-SEARCH',
]);

export interface H2Request {
  /** TLS SNI; undefined sends none. */
  servername: string | undefined;
  fields: Field[];
  /** Whether node's client cannot send it (or the caller asked for the frame writer). */
  handWritten: boolean;
  headRequest: boolean;
  expect: Expectation;
  /** RST_STREAM codes that are a right answer instead of a response. */
  resetCodes: readonly number[];
  /** Whether HTTP/2 carries it as it is (the HTTP/1.1 expectation holds unchanged). */
  plain: boolean;
}

/**
 * `request` over HTTP/2, or undefined for a request whose HTTP version is not HTTP/1.1 (what it
 * tests does not exist in HTTP/2).
 * @param handWritten send it with the frame writer even when node's client could.
 */
export function overHttp2(
  request: FuzzRequest,
  knowledge: FixtureKnowledge,
  limits: { maxHeaderBytes: number },
  handWritten = false,
): H2Request | undefined {
  const text = (pieces: FuzzRequest['method']): string => render(pieces, knowledge).toString('latin1');
  if (text(request.version) !== 'HTTP/1.1') return undefined;
  const method = text(request.method);
  const path = text(request.target);
  const hosts: string[] = [];
  const others: Field[] = [];
  for (const [name, value] of request.headers) {
    const lower = text(name).toLowerCase();
    if (lower === 'host') hosts.push(text(value));
    else others.push([lower, text(value)]);
  }
  const fields: Field[] = [
    [':method', method],
    [':scheme', 'https'],
    [':path', path],
    ...(hosts.length === 1 ? [[':authority', hosts[0] as string] as const] : []),
    ...hosts.filter(() => hosts.length > 1).map((host): Field => ['host', host]),
    ...others,
  ];
  const plain =
    PLAIN_METHODS.has(method) &&
    CLEAN_PATH.test(path) &&
    hosts.length === 1 &&
    CLEAN_AUTHORITY.test(hosts[0] as string) &&
    others.every(([name, value]) => TOKEN.test(name) && CLEAN_VALUE.test(value));
  const names = fields.map(([name]) => name);
  const listBytes = fields.reduce(
    (sum, [name, value]) => sum + name.length + value.length + FIELD_OVERHEAD,
    0,
  );
  const resetCodes = [
    ...(plain ? [] : [constants.NGHTTP2_PROTOCOL_ERROR]),
    // Node resets a stream whose header list is too large; nghttp2 sometimes first, as an internal error.
    ...(listBytes > limits.maxHeaderBytes
      ? [constants.NGHTTP2_ENHANCE_YOUR_CALM, constants.NGHTTP2_INTERNAL_ERROR]
      : []),
  ];
  return {
    servername: request.servername,
    fields,
    handWritten: handWritten || !plain || new Set(names).size !== names.length,
    headRequest: method === 'HEAD',
    expect: plain ? request.expect : ownHostExpectation(request.servername, hosts, others, knowledge),
    resetCodes,
    plain,
  };
}

/**
 * For a request HTTP/2 does not carry as it is: data is allowed only of the SNI host, when no host
 * field left (nghttp2 drops those of values it refuses) names another host and an Authorization
 * field left holds a key of that host that reads its customers; anything else must be rejected.
 */
function ownHostExpectation(
  servername: string | undefined,
  hosts: readonly string[],
  others: readonly Field[],
  knowledge: FixtureKnowledge,
): Expectation {
  const sni = servername?.toLowerCase();
  const scope = knowledge.tenantIds
    .flatMap((tenant) => (['production', 'sandbox'] as const).map((environment) => ({ tenant, environment })))
    .find(({ tenant, environment }) => hostOf(tenant, environment) === sni);
  if (!scope) return REJECTED.any;
  // One host line is the :authority, which nghttp2 does not drop (it may reset the stream); of
  // several `host` fields it drops those that are no authority, which are counted as dropped
  // unless plainly one (if one is kept after all, the two hosts get the request rejected).
  const kept = hosts.length === 1 ? hosts : hosts.filter((host) => CLEAN_AUTHORITY.test(host));
  const named = kept.map((host) => host.replace(/:\d*$/, '').replace(/\.$/, '').toLowerCase());
  if (named.some((host) => host !== sni)) return REJECTED.any;
  const authorization = others
    .filter(([name, value]) => name === 'authorization' && !DROPPED_VALUE.test(value))
    .map(([, value]) => value);
  const validKey = knowledge.keyIds.some(
    (id) =>
      authorization.some((value) => value.includes(knowledge.key(id).secret)) &&
      knowledge.bearerOutcome(id, scope.tenant, scope.environment).kind === 'data',
  );
  return validKey ? { kind: 'data-or-rejected', ...scope } : REJECTED.any;
}

/** The problems of the answer to one HTTP/2 request; empty when it is as it must be. */
export function h2Problems(outcome: H2Outcome, request: H2Request, knowledge: FixtureKnowledge): string[] {
  if (outcome.kind === 'failed') return [`the stream failed: ${outcome.error}`];
  if (outcome.kind === 'reset') {
    return request.resetCodes.includes(outcome.code)
      ? []
      : [`the server reset the stream with error code ${outcome.code}`];
  }
  return problemsWith(asRawOutcome(outcome), request.expect, knowledge, request.headRequest);
}

/** An HTTP/2 answer in the form the HTTP/1.1 invariants read (response-invariants.ts). */
export function asRawOutcome(outcome: Extract<H2Outcome, { kind: 'response' }>): RawOutcome {
  const headers = new Map<string, string[]>();
  const lines = [`HTTP/2 ${outcome.status}`];
  for (const [name, value] of Object.entries(outcome.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    const values = Array.isArray(value) ? value : [String(value)];
    headers.set(name, values);
    lines.push(...values.map((one) => `${name}: ${one}`));
  }
  return {
    kind: 'response',
    response: { status: outcome.status, headers, head: lines.join('\r\n'), body: outcome.body },
    connectionClosing: false,
  };
}

/** The request as text for a failure message: keys shown as `<key id>`, never their value. */
export function describeH2Request(request: H2Request, knowledge: FixtureKnowledge): string {
  const shown = redactSecrets(JSON.stringify(request.fields), knowledge);
  const clipped = shown.length > 600 ? `${shown.slice(0, 600)}… (${shown.length} chars)` : shown;
  return `HTTP/2${request.handWritten ? ' (frame writer)' : ''}, SNI ${request.servername ?? '(none)'}\n${clipped}`;
}
