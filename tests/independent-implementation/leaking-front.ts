// A front that leaks once: one bad pod behind a balancer, or a race, answers one request without
// Authorization with another tenant's list (the `leakAt`-th keyless GET of the customer list that
// carries a Content-Type, as every request of the suite's rules and its learning does; the
// preflight's first request carries none). Every other request goes on to the implementation
// unchanged. A run that saw the leak has seen a failure, whatever a retry sees.
import { startGateFront, type GateFront } from './gate-front.ts';
import type { IndependentServer } from './server.ts';
import { probe } from './run-support.ts';

export async function startLeakingFront(server: IndependentServer, leakAt: number): Promise<GateFront> {
  // What globex's full key is served: the list the bad pod hands out.
  const globex = await probe({
    port: server.port,
    ca: server.caPem,
    host: 'globex.api.localhost',
    headers: [['Authorization', `Bearer ${server.keys.globexLiveFull}`]],
  });
  let keyless = 0;
  return startGateFront({
    upstreamPort: server.port,
    upstreamCa: server.caPem,
    gate: (request) => {
      const keylessList =
        request.method === 'GET' &&
        (request.url ?? '').startsWith('/v1/customers') &&
        request.headers.authorization === undefined &&
        request.headers['content-type'] !== undefined;
      if (keylessList) keyless += 1;
      if (!keylessList || keyless !== leakAt) return { pass: true };
      return {
        answer: {
          status: 200,
          headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
          body: globex.body,
        },
      };
    },
  });
}
