// The independent implementation as a deployment a test runs the suite against: started with the
// choices the test makes, alone or reached through a gate front (a gateway, a quota, a load balancer
// restarting or closing idle connections), with the target file naming where it is reached, as its
// operator would write it. Started before the tests of a `describe` and stopped after them.
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
import type { ServerChoices } from '../independent-implementation/choices.ts';
import { startIndependentServer, type IndependentServer } from '../independent-implementation/server.ts';

export interface IndependentDeployment {
  server: IndependentServer;
  /** The target file naming where the implementation is reached, and the variables of its keys. */
  target: WrittenTarget;
}

export interface GatedDeployment extends IndependentDeployment {
  front: GateFront;
}

/** How the front decides (its gate) and any other option of it; the upstream is the implementation. */
export type FrontOptions = Omit<GateFrontOptions, 'upstreamPort' | 'upstreamCa'>;

/**
 * The implementation for the tests of the enclosing `describe` (or of the file, called at its top):
 * started before them, closed after them. Its tests read it through the function returned.
 */
export function independentDeploymentPerSuite(
  choices: Partial<ServerChoices> = {},
): () => IndependentDeployment {
  let started: IndependentDeployment | undefined;
  let server: IndependentServer | undefined;
  before(async () => {
    server = await startIndependentServer(choices);
    started = { server, target: await writeIndependentTarget(server) };
  });
  after(async () => {
    await server?.close();
  });
  return () => {
    if (!started) throw new Error('The independent deployment is read before its before hook ran.');
    return started;
  };
}

/**
 * The implementation behind a gate front, for the tests of the enclosing `describe` (or of the
 * file): started before them, front and implementation closed after them; the target file names
 * the front.
 */
export function gatedDeploymentPerSuite(
  front: FrontOptions,
  choices: Partial<ServerChoices> = {},
): () => GatedDeployment {
  let started: GatedDeployment | undefined;
  let server: IndependentServer | undefined;
  let gateFront: GateFront | undefined;
  before(async () => {
    server = await startIndependentServer(choices);
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
