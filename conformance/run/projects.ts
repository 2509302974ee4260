// The suite as Playwright projects: a set-up project, one project per protocol the run speaks over
// TLS (each running every spec with the target and the protocol as options), and a teardown project
// when keys are minted. `npm run conformance` (the `run` command, playwright.config.ts) and a
// team's own config (library/playwright.ts, `conformanceProjects`) both take them from
// `standaloneProjects`: one way to run the suite. Each rule worker starts the embedded reference
// server in-process when that is the target.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Project } from '@playwright/test';
import { CODE_ROOT } from '../../kit/package-root.ts';
import { PROTOCOL_NAME, type Protocol } from '../requests/protocols.ts';
import { initialTraffic } from '../requests/shared-pacing.ts';
import { ENV, handOver, handOverVariables, setHandOvers } from '../env.ts';
import type { RunSettings } from '../settings.ts';
import type { TargetDeclaration } from '../deployment/target.ts';

/** The worker options of the suite (conformance/run/test.ts) a project sets. */
export interface SuiteOptions {
  /** The run's settings, as the entry point resolved them. */
  runSettings: Readonly<RunSettings> | undefined;
  runEnvironment: Readonly<Record<string, string>> | undefined;
  declaredTarget: TargetDeclaration | undefined;
  protocol: Protocol;
  /** The `run` command's config alone (failed-rules-keep-worker.ts); a team's config leaves it false. */
  failedRulesKeepWorker?: boolean;
}

export interface RuleProjectsSettings {
  declaredTarget: TargetDeclaration;
  protocols: readonly Protocol[];
  /** The run's settings, resolved once by the entry point: each project hands them to its workers. */
  settings: Readonly<RunSettings>;
  /**
   * What the run's processes hand each other (its shared files: conformance/env.ts,
   * HAND_OVER_VARIABLES), for each worker; never a setting.
   */
  runEnvironment?: Readonly<Record<string, string>>;
  /**
   * The projects' names: `{prefix} {protocol}` when there are several, `{prefix}` alone otherwise.
   * An empty prefix (the `run` command) names them by protocol only, and one project not at all.
   */
  prefix: string;
  /** Projects the rule projects depend on (a set-up project). */
  dependencies?: string[];
  /**
   * A rule that fails on its last try keeps its worker (failed-rules-keep-worker.ts): only where the
   * kit's reporter decides the run's status and writes its reports, the `run` command's config.
   */
  failedRulesKeepWorker?: boolean;
}

const SPECS = join(CODE_ROOT, 'specs');

export function projectName(prefix: string, protocol: Protocol, several: boolean): string {
  if (!several) return prefix;
  return prefix === '' ? PROTOCOL_NAME[protocol] : `${prefix} ${PROTOCOL_NAME[protocol]}`;
}

/** One project per protocol, each running every rule. */
export function ruleProjects(settings: RuleProjectsSettings): Project<object, SuiteOptions>[] {
  const several = settings.protocols.length > 1;
  return settings.protocols.map((protocol) => ({
    name: projectName(settings.prefix, protocol, several),
    testDir: SPECS,
    // A rule's time includes its share of the retry budget and of a paced run's waits.
    timeout: 60_000 + settings.settings.retryBudgetMs,
    ...(settings.dependencies ? { dependencies: settings.dependencies } : {}),
    use: {
      declaredTarget: settings.declaredTarget,
      protocol,
      runSettings: settings.settings,
      runEnvironment: settings.runEnvironment,
      ...(settings.failedRulesKeepWorker ? { failedRulesKeepWorker: true } : {}),
    },
  }));
}

/** Whether each worker starts the embedded reference server (standaloneProjects). */
export function embeddedInWorker(): boolean {
  return handOver('embeddedInWorker') === '1';
}

/**
 * The embedded reference server, started in this worker when it is the run's target. Loaded only
 * then: it is the whole server, which a worker checking a deployment would load for nothing.
 */
export async function startEmbeddedInThisWorker(): Promise<{ close(): Promise<void> } | undefined> {
  if (!embeddedInWorker()) return undefined;
  const { startEmbeddedReference } = await import('./embedded-in-worker.ts');
  return startEmbeddedReference();
}

/** The run's shared files: made once by the Playwright runner, found by its workers through the environment. */
export function runStateDirectory(): string {
  const existing = handOver('projectState');
  if (existing) return existing;
  const directory = mkdtempSync(join(tmpdir(), 'conformance-projects-'));
  setHandOvers(handOverVariables({ projectState: directory }));
  // The runner made it; the runner removes it when it ends.
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** What a project of the kit is for, in its metadata: the reporter tells the rules' projects by it. */
export type KitProjectRole = 'set-up' | 'teardown';

export function kitProjectRole(project: { metadata?: unknown } | undefined): KitProjectRole | undefined {
  return (project?.metadata as { conformanceRole?: KitProjectRole } | undefined)?.conformanceRole;
}

/**
 * The rule projects with what the run needs around them: a set-up project (the preflight, and the
 * keys a target file asks to mint; for the embedded reference, which each rule worker starts
 * in-process, the preflight against one started for it) and, when keys are minted, a teardown
 * project that revokes them. The `run` command's config and a team's (conformanceProjects) both
 * take their projects from here.
 */
export function standaloneProjects(
  options: Omit<RuleProjectsSettings, 'dependencies' | 'runEnvironment'>,
): Project<object, SuiteOptions>[] {
  const state = runStateDirectory();
  const settings = { ...options, settings: { ...options.settings, protocols: options.protocols } };
  const trafficFile = join(state, 'traffic.json');
  const runEnvironment: Record<string, string> = {
    [ENV.projectState]: state,
    [ENV.answerWatchFile]: join(state, 'consecutive-no-answers'),
    [ENV.trafficFile]: trafficFile,
  };
  if (settings.declaredTarget.mode === 'embedded') runEnvironment[ENV.embeddedInWorker] = '1';
  // What a new state directory starts with, whoever made it first (a target given by URL writes
  // its target file there before): the workers, which read the config again, find it there.
  if (!existsSync(trafficFile))
    writeFileSync(trafficFile, JSON.stringify(initialTraffic(settings.settings.maxRps)));
  const setupName = kitProjectName(settings.prefix, 'set-up');
  const teardownName = kitProjectName(settings.prefix, 'teardown');
  const minting = settings.declaredTarget.keyMinting !== undefined;
  const shared = {
    declaredTarget: settings.declaredTarget,
    protocol: 'h1' as const,
    runSettings: settings.settings,
    runEnvironment,
  };
  const kitProject = (role: KitProjectRole, testMatch: RegExp): Project<object, SuiteOptions> => ({
    name: kitProjectName(settings.prefix, role),
    testDir: join(CODE_ROOT, 'conformance', 'run'),
    testMatch,
    metadata: { conformanceRole: role },
    use: shared,
  });
  return [
    {
      ...kitProject('set-up', /project-setup\.(ts|js)$/),
      // Only a target whose keys were minted has anything to undo.
      ...(minting ? { teardown: teardownName } : {}),
    },
    ...(minting ? [kitProject('teardown', /project-teardown\.(ts|js)$/)] : []),
    ...ruleProjects({ ...settings, runEnvironment, dependencies: [setupName] }),
  ];
}

/** `conformance set-up`, or `set-up` alone for the `run` command's unnamed projects. */
export function kitProjectName(prefix: string, role: KitProjectRole): string {
  return prefix === '' ? role : `${prefix} ${role}`;
}
