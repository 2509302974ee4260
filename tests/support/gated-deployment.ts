// The independent implementation reached through a gate front (a gateway, a quota, a load balancer
// restarting or closing idle connections), with the target file that names the front, as its
// operator would write it: what a test of a deployment behind a front starts before its tests and
// stops after them.
import { after, before } from 'node:test';
import {
  startGateFront,
  type GateFront,
  type GateFrontOptions,
} from '../independent-implementation/gate-front.ts';
import {
  writeIndependentTarget,
  type WrittenTarget,
} from '../independent-implementation/independent-target.ts';
import { startIndependentServer, type IndependentServer } from '../independent-implementation/server.ts';

export interface GatedDeployment {
  server: IndependentServer;
  front: GateFront;
  /** The target file naming the front, and the variables of its keys. */
  target: WrittenTarget;
}

/** How the front decides (its gate) and any other option of it; the upstream is the implementation. */
export type FrontOptions = Omit<GateFrontOptions, 'upstreamPort' | 'upstreamCa'>;

/**
 * The deployment for the tests of the enclosing `describe` (or of the file, called at its top):
 * started before them, front and implementation closed after them. Its tests read it through the
 * function returned.
 */
export function gatedDeploymentPerSuite(front: FrontOptions): () => GatedDeployment {
  let started: GatedDeployment | undefined;
  let server: IndependentServer | undefined;
  let gateFront: GateFront | undefined;
  before(async () => {
    server = await startIndependentServer();
    gateFront = await startGateFront({ ...front, upstreamPort: server.port, upstreamCa: server.caPem });
    const target = await writeIndependentTarget({ ...server, port: gateFront.port, caPem: gateFront.caPem });
    started = { server, front: gateFront, target };
  });
  after(async () => {
    await gateFront?.close();
    await server?.close();
  });
  return () => {
    if (!started) throw new Error('The gated deployment is read before its before hook ran.');
    return started;
  };
}
