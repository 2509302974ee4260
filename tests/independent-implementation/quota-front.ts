// A gateway with a quota on the unusual requests — an odd Authorization, a query string, a
// forwarding header — that answers them 429 with a Retry-After of its own (an hour, a day, or a
// value RFC 9110 does not allow) and serves every other request: what many API gateways send.
import type { IncomingMessage } from 'node:http';
import type { Gate } from './gate-front.ts';

/** The Retry-After values the gate cycles through: far beyond any retry budget, then unreadable ones. */
export const QUOTA_RETRY_AFTER = ['120', '999999', 'Fri, 31 Dec 9999 23:59:59 GMT', '1.5', '-5', 'May 3'];

const FORWARDING = /^(x-forwarded-|forwarded$|x-real-ip$|x-original-)/;

/** A query string, a forwarding header, or an `Authorization` other than one `Bearer <token>`. */
export function unusualRequest(request: IncomingMessage): boolean {
  const authorization = request.headersDistinct.authorization;
  return (
    (request.url ?? '').includes('?') ||
    Object.keys(request.headers).some((name) => FORWARDING.test(name)) ||
    (authorization !== undefined &&
      (authorization.length !== 1 || !/^Bearer [A-Za-z0-9_]+$/.test(authorization[0] ?? '')))
  );
}

export function quotaGate(): { gate: Gate; refused: () => number } {
  let refused = 0;
  return {
    refused: () => refused,
    gate: (request) => {
      if (!unusualRequest(request)) return { pass: true };
      const retryAfter = QUOTA_RETRY_AFTER[refused % QUOTA_RETRY_AFTER.length] ?? '120';
      refused += 1;
      return {
        answer: {
          status: 429,
          headers: { 'Content-Type': 'application/json', 'Retry-After': retryAfter },
          body: '{"error":{"code":"quota_exceeded","message":"Quota exceeded for this kind of request."}}',
        },
      };
    },
  };
}
