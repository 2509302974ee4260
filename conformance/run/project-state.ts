// What the set-up project of a run (project-setup.ts) found, for the rule workers, the teardown
// project and the conformance reporter: the preflight's result and any minted keys, in one file of
// the run's shared directory (conformance/run/projects.ts); and what it learned of the tenants, in
// a file of its own per target and settings.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV, type Environment, handOver } from '../env.ts';
import type { MadeKey } from '../deployment/key-minting.ts';
import type { TargetDeclaration } from '../deployment/target.ts';
import type { KnowledgeRecord } from '../judging/knowledge-record.ts';
import type { RunSettings } from '../settings.ts';

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
  writeWhole(file, JSON.stringify(state));
}

function writeWhole(file: string, text: string): void {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, text, { mode: 0o600 });
  renameSync(partial, file);
}

/**
 * Which run's tenants a knowledge file is of: a team's config may check several targets (or one
 * under other settings) in one Playwright run, each with its set-up project, and all share the
 * state directory. The set-up project and the rule projects are given the same declared target
 * and settings (projects.ts), so both name the same file.
 */
export function knowledgeKey(declaredTarget: TargetDeclaration, settings: Readonly<RunSettings>): string {
  return createHash('sha256')
    .update(JSON.stringify([declaredTarget, settings]))
    .digest('hex')
    .slice(0, 32);
}

function knowledgeFile(key: string, env: Environment | undefined): string | undefined {
  const directory = handOver('projectState', env);
  return directory ? join(directory, `knowledge-${key}.json`) : undefined;
}

/** What the set-up project learned of the tenants, left for every rule worker of its run. */
export function writeRunKnowledge(key: string, record: KnowledgeRecord, env?: Environment): void {
  const file = knowledgeFile(key, env);
  if (!file) throw new Error(`${ENV.projectState} is not set: run the set-up project from its config.`);
  // The tenants' data (never a key): readable by this user only, as the state file.
  writeWhole(file, JSON.stringify(record));
}

/** What the run's set-up project learned of the tenants; undefined when it learned nothing (the mutation campaign's batch has no set-up project). */
export function readRunKnowledge(key: string, env?: Environment): KnowledgeRecord | undefined {
  const file = knowledgeFile(key, env);
  return file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as KnowledgeRecord) : undefined;
}
