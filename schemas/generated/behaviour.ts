/* Generated from schemas/behaviour.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

export type Behaviour = ErrorBehaviour | DelayBehaviour | CutBehaviour | KeyBehaviour;
/**
 * An error answer with the body of spec §7. A code of spec §7 (whose conditions the spec states) is refused unless `breaksRule` says which rule the test breaks on purpose.
 */
export type ErrorBehaviour = Match & {
  kind: 'error';
  status: number;
  code: string;
  message?: string;
  /**
   * Seconds, sent as `Retry-After` (RFC 9110 §10.2.3).
   */
  retryAfter?: number;
  /**
   * More header fields of the answer.
   */
  headers?: {
    [k: string]: string;
  };
  delayMs?: DelayMs;
  breaksRule?: BreaksRule;
};
/**
 * Milliseconds before the answer.
 */
export type DelayMs = number;
/**
 * The rule this behaviour breaks on purpose, in words: required for what the spec does not leave open.
 */
export type BreaksRule = string;
/**
 * The reference's own answer, after a delay.
 */
export type DelayBehaviour = Match & {
  kind: 'delay';
  delayMs: DelayMs;
};
/**
 * No answer: `reset`, the connection is reset (TCP RST); `goaway`, an HTTP/2 GOAWAY ends the connection, its last stream id below the request's when `refused` (RFC 9113 §6.8: not processed, safe to retry); `rst-stream`, the request's HTTP/2 stream is reset, REFUSED_STREAM when `refused` (RFC 9113 §8.7), else INTERNAL_ERROR. Over HTTP/1.1, goaway and rst-stream close the connection without an answer.
 */
export type CutBehaviour = Match & {
  kind: 'reset' | 'goaway' | 'rst-stream';
  refused?: boolean;
  delayMs?: DelayMs;
};
/**
 * The reference answers the key's first `after` requests, then revokes the key (`revoke-key`) or rotates it (`rotate-key`: a new key like it, the old one revoked): later requests with it get invalid_api_key, as from the reference.
 */
export type KeyBehaviour = Match & {
  kind: 'revoke-key' | 'rotate-key';
  after: number;
};

/**
 * Behaviours of the reference server for a client's tests (POST /v1/behaviours of the admin API, `mock.use()` in code): each answers the tenant API requests it matches in place of the reference's answer, a later call's before an earlier one's, and within one call in their order, until its `times` are spent. A behaviour changes only what the spec leaves open (limits, availability, time) unless it names the rule it breaks in `breaksRule`.
 */
export interface Behaviours {
  /**
   * @minItems 1
   * @maxItems 100
   */
  behaviours: [Behaviour, ...Behaviour[]];
}
/**
 * Which tenant API requests a behaviour answers: every field given must match (none: every request). `keyId` matches a request whose key the reference accepted.
 */
export interface Match {
  /**
   * What the journal names it by (default: its kind and answer, e.g. `error 429 rate_limited`).
   */
  name?: string;
  tenant?: string;
  environment?: 'production' | 'sandbox';
  keyId?: string;
  method?: string;
  /**
   * The request's path without its query, e.g. /v1/customers.
   */
  path?: string;
  /**
   * How many matching requests it answers; default every one.
   */
  times?: number;
}
