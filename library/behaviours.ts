// Behaviours for `mock.use()`: small values (which requests, what answer), not subclasses — the
// same JSON the admin API's POST /v1/behaviours takes (schemas/behaviour.schema.json), so that a
// client in another language is tested with the same ones. These helpers only fill in the fields;
// a plain object of type `Behaviour` works as well.
import type {
  CutBehaviour,
  DelayBehaviour,
  ErrorBehaviour,
  KeyBehaviour,
  Match,
} from '../schemas/generated/behaviour.ts';

export type {
  Behaviour,
  CutBehaviour,
  DelayBehaviour,
  ErrorBehaviour,
  KeyBehaviour,
} from '../schemas/generated/behaviour.ts';
export type { BehaviourState } from '../reference-server/behaviours/behaviour-table.ts';

/**
 * Which requests a behaviour answers (every field given must match; none: every tenant API
 * request), how many (`times`, default every one), and its name in the journal.
 */
export type BehaviourMatch = Match;

/** What a `retryAfter` behaviour adds: seconds sent as `Retry-After`, and a delay before the answer. */
export interface ErrorOptions extends BehaviourMatch {
  retryAfter?: number;
  message?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

/**
 * An error answer with the body of spec §7. A code of spec §7 (`invalid_api_key`, …) needs
 * `breaksRule`, the rule the test breaks on purpose: the spec says when those are answered.
 */
export function errorAnswer(
  options: ErrorOptions & { status: number; code: string; breaksRule?: string },
): ErrorBehaviour {
  return { kind: 'error', ...options };
}

/** 429 `rate_limited`, with `Retry-After` when `retryAfter` (seconds) is given. */
export function rateLimited(options: ErrorOptions = {}): ErrorBehaviour {
  return errorAnswer({ status: 429, code: 'rate_limited', ...options });
}

/** 503 `service_unavailable`, with `Retry-After` when `retryAfter` (seconds) is given. */
export function unavailable(options: ErrorOptions = {}): ErrorBehaviour {
  return errorAnswer({ status: 503, code: 'service_unavailable', ...options });
}

/** The reference's own answer, `delayMs` later: a slow API, for a client's time-out. */
export function slowAnswer(delayMs: number, match: BehaviourMatch = {}): DelayBehaviour {
  return { kind: 'delay', delayMs, ...match };
}

/** No answer: the connection is closed under the request (a TCP reset where the socket allows it). */
export function connectionReset(match: BehaviourMatch & { delayMs?: number } = {}): CutBehaviour {
  return { kind: 'reset', ...match };
}

/**
 * No answer: an HTTP/2 GOAWAY ends the connection. `refused: true` sends a last stream id below the
 * request's (RFC 9113 §6.8: not processed, safe to retry). Over HTTP/1.1 the connection is closed.
 */
export function goAway(match: BehaviourMatch & { refused?: boolean; delayMs?: number } = {}): CutBehaviour {
  return { kind: 'goaway', ...match };
}

/**
 * No answer: the request's HTTP/2 stream is reset, with REFUSED_STREAM when `refused` (not
 * processed, RFC 9113 §8.7), else INTERNAL_ERROR. Over HTTP/1.1 the connection is closed.
 */
export function resetStream(
  match: BehaviourMatch & { refused?: boolean; delayMs?: number } = {},
): CutBehaviour {
  return { kind: 'rst-stream', ...match };
}

/** The key's first `after` requests are answered as usual, then the key is revoked. */
export function revokeKeyAfter(
  keyId: string,
  after: number,
  match: Omit<BehaviourMatch, 'times'> = {},
): KeyBehaviour {
  return { kind: 'revoke-key', keyId, after, ...match };
}

/**
 * The key's first `after` requests are answered as usual, then it is rotated: a new key like it
 * (its secret in `mock.behaviours()`'s `replacement`), the old one revoked.
 */
export function rotateKeyAfter(
  keyId: string,
  after: number,
  match: Omit<BehaviourMatch, 'times'> = {},
): KeyBehaviour {
  return { kind: 'rotate-key', keyId, after, ...match };
}
