// The independent implementation as a deployment a test runs the suite against: started with the
// choices the test makes, alone or reached through a gate front (a gateway, a quota, a load balancer
// restarting or closing idle connections), with the target file naming where it is reached, as its
// operator would write it. Each is started before the tests of a `describe` and stopped after them.
import { after, before } from 'node:test';
import { runConformance, type ConformanceRun } from './conformance-run.ts';
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
 * What `start` makes, for the tests of the enclosing `describe` (or of the file, called at its
 * top): made before them, given to `stop` after them. Its tests read it through the function
 * returned.
 */
function perSuite<T>(what: string, start: () => Promise<T>, stop: (started: T) => Promise<void>): () => T {
  let started: T | undefined;
  before(async () => {
    started = await start();
  });
  after(async () => {
    if (started !== undefined) await stop(started);
  });
  return () => {
    if (started === undefined) throw new Error(`The ${what} is read before its before hook ran.`);
    return started;
  };
}

/** The implementation alone, for a test that puts fronts of its own before it. */
export function independentServerPerSuite(choices: Partial<ServerChoices> = {}): () => IndependentServer {
  return perSuite(
    'independent implementation',
    () => startIndependentServer(choices),
    (server) => server.close(),
  );
}

/** The implementation and a target file naming it, with how to stop it: a deployment of a batch. */
export async function startIndependentDeployment(
  choices: Partial<ServerChoices> = {},
): Promise<IndependentDeployment & { close(): Promise<void> }> {
  const server = await startIndependentServer(choices);
  return { server, target: await writeIndependentTarget(server), close: () => server.close() };
}

/** The implementation and a target file naming it. */
export function independentDeploymentPerSuite(
  choices: Partial<ServerChoices> = {},
): () => IndependentDeployment {
  return perSuite(
    'independent deployment',
    async () => {
      const server = await startIndependentServer(choices);
      return { server, target: await writeIndependentTarget(server) };
    },
    ({ server }) => server.close(),
  );
}

/** The implementation behind a gate front, a target file naming the front, and how to stop both. */
export async function startGatedDeployment(
  front: FrontOptions,
  choices: Partial<ServerChoices> = {},
): Promise<GatedDeployment & { close(): Promise<void> }> {
  const server = await startIndependentServer(choices);
  const gate = await startGateFront({ ...front, upstreamPort: server.port, upstreamCa: server.caPem });
  const target = await writeIndependentTarget({ ...server, port: gate.port, caPem: gate.caPem });
  return {
    server,
    front: gate,
    target,
    close: async () => {
      await gate.close();
      await server.close();
    },
  };
}

/** The implementation behind a gate front, and a target file naming the front. */
export function gatedDeploymentPerSuite(
  front: FrontOptions,
  choices: Partial<ServerChoices> = {},
): () => GatedDeployment {
  return perSuite(
    'gated deployment',
    () => startGatedDeployment(front, choices),
    (deployment) => deployment.close(),
  );
}

/** The suite run against a deployment: its target file, `args`, the variables of its keys and `env`. */
export function runAgainst(
  deployment: IndependentDeployment,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<ConformanceRun> {
  return runConformance(['--target', deployment.target.file, ...args], { ...deployment.target.env, ...env });
}
