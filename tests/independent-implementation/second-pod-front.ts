// Two pods behind a balancer: pod A is the independent implementation; pod B looks keys up in
// every tenant, so another tenant's key on acme's host is served acme's customers. The balancer
// sends requests that carry globex's key on acme's host to pod A, but the `podBAt`-th of them to
// pod B (as a balancer alternating between pods hands a run's requests out). The suite's rules
// send that request in this order: TENANT-CROSS-KEY-REJECTED's (the MUST) twice — on a connection
// offering no ALPN, then on one offering http/1.1 — then TENANT-CROSS-KEY-INDISTINGUISHABLE's
// (ADVISORY), so with `podBAt` 3 only the advisory rule's probe is answered with data: a cross-tenant read the run saw, which only the run's checker
// catches. Everything else goes to pod A unchanged.
import { startGateFront, type GateFront } from './gate-front.ts';
import type { IndependentServer } from './server.ts';
import { probe } from './run-support.ts';

export async function startSecondPodFront(server: IndependentServer, podBAt: number): Promise<GateFront> {
  // What pod B serves acme's host for any valid key: acme's list.
  const acme = await probe({
    port: server.port,
    ca: server.caPem,
    host: 'acme.api.localhost',
    headers: [['Authorization', `Bearer ${server.keys.acmeLiveFull}`]],
  });
  const foreign = `Bearer ${server.keys.globexLiveFull}`;
  let seen = 0;
  return startGateFront({
    upstreamPort: server.port,
    upstreamCa: server.caPem,
    gate: (request) => {
      const crossKey =
        (request.headers.host ?? '').startsWith('acme.api.') && request.headers.authorization === foreign;
      if (crossKey) seen += 1;
      if (!crossKey || seen !== podBAt) return { pass: true };
      return {
        answer: {
          status: 200,
          headers: {
            'Content-Type': 'application/json',
            'Cache-Control': 'no-store',
            'X-Served-By': 'pod-b',
          },
          body: acme.body,
        },
      };
    },
  });
}
