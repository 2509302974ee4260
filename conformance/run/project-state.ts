// What the set-up project of a run (project-setup.ts) found, for the rule workers, the teardown
// project and the conformance reporter: the preflight's result and any minted keys, in one file of
// the run's shared directory (conformance/run/projects.ts).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV, type Environment, handOver } from '../env.ts';
import type { MadeKey } from '../deployment/key-minting.ts';

export interface ProjectState {
  /** Variables for the workers: the preflight's result, minted keys (CONFORMANCE_MINTED_*). */
  env: Record<string, string>;
  /** The keys minted for the run, for the teardown project to revoke. */
  minted: MadeKey[];
}

function stateFile(env: Environment | undefined): string | undefined {
  const directory = handOver('projectState', env);
  return directory ? join(directory, 'state.json') : undefined;
}

export function readProjectState(env?: Environment): ProjectState | undefined {
  const file = stateFile(env);
  return file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ProjectState) : undefined;
}

export function writeProjectState(state: ProjectState, env?: Environment): void {
  const file = stateFile(env);
  if (!file) throw new Error(`${ENV.projectState} is not set: run the set-up project from its config.`);
  // It may hold minted keys: readable by this user only, in a directory of the run's own. Written
  // beside and renamed into place, so that no reader (the reporter reads it while the set-up
  // project runs) ever sees half of it.
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify(state), { mode: 0o600 });
  renameSync(partial, file);
}
