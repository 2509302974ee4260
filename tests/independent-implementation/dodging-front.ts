// A gateway that answers the unusual requests — an Authorization other than one `Bearer <token>`,
// a repeated field, a query string, a forwarding header — 503 Service Unavailable, as a WAF rule
// or an API gateway's request validation may, and serves every plain request: the deployment
// behind it is healthy, but the requests the rules need never reach it.
import type { Gate } from './gate-front.ts';
import { unusualRequest } from './quota-front.ts';

export function dodgingGate(): { gate: Gate; refused: () => number; served: () => number } {
  let refused = 0;
  let served = 0;
  return {
    refused: () => refused,
    served: () => served,
    gate: (request) => {
      if (!unusualRequest(request)) {
        served += 1;
        return { pass: true };
      }
      refused += 1;
      return {
        answer: {
          status: 503,
          headers: { 'Content-Type': 'text/html' },
          body: '<html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>',
        },
      };
    },
  };
}
