// The suite as Playwright projects: one project per protocol the run speaks over TLS, each running
// every spec with the target and the protocol as options. `npm run conformance` (the `run`
// command, playwright.config.ts) and a team's own config (library/playwright.ts,
// `conformanceProjects`) both take their rule projects from `ruleProjects`: one way to run the suite.
// A team's config has no global set-up or web server of the kit's: `standaloneProjects` adds a
// set-up project (the preflight, keys to mint, the run's shared files) and a teardown project,
// and has each worker start the embedded reference server in-process when that is the target.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Project } from '@playwright/test';
import { CODE_ROOT } from '../../reference-server/package-root.ts';
import { PROTOCOL_NAME, type Protocol } from '../requests/protocols.ts';
import { initialTraffic } from '../requests/shared-pacing.ts';
import { ENV } from '../env.ts';
import { readRunSettings } from '../settings.ts';
import type { TargetDeclaration } from '../deployment/target.ts';

/** The worker options of the suite (conformance/run/test.ts) a project sets. */
export interface SuiteOptions {
  runEnvironment: Readonly<Record<string, string>> | undefined;
  declaredTarget: TargetDeclaration | undefined;
  protocol: Protocol;
}

export interface RuleProjectsSettings {
  declaredTarget: TargetDeclaration;
  protocols: readonly Protocol[];
  /** The run's CONFORMANCE_* variables for each worker; unset, the process environment is the run's. */
  runEnvironment?: Readonly<Record<string, string>>;
  /**
   * The projects' names: `{prefix} {protocol}` when there are several, `{prefix}` alone otherwise.
   * An empty prefix (the `run` command) names them by protocol only, and one project not at all.
   */
  prefix: string;
  /** Projects the rule projects depend on (a set-up project). */
  dependencies?: string[];
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
    timeout: 60_000 + readRunSettings({ ...process.env, ...settings.runEnvironment }).retryBudgetMs,
    ...(settings.dependencies ? { dependencies: settings.dependencies } : {}),
    use: {
      declaredTarget: settings.declaredTarget,
      protocol,
      runEnvironment: settings.runEnvironment,
    },
  }));
}

/** Whether each worker starts the embedded reference server (a team's config, standaloneProjects). */
export function embeddedInWorker(): boolean {
  return process.env[ENV.embeddedInWorker] === '1';
}

/** The run's shared files: made once by the Playwright runner, found by its workers through the environment. */
export function runStateDirectory(): { directory: string; created: boolean } {
  const existing = process.env[ENV.projectState];
  if (existing) return { directory: existing, created: false };
  const directory = mkdtempSync(join(tmpdir(), 'conformance-projects-'));
  process.env[ENV.projectState] = directory;
  // The runner made it; the runner removes it when it ends.
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  return { directory, created: true };
}

/**
 * The rule projects of a team's config with what global set-up and webServer do for the `run`
 * command: a set-up project (preflight and key minting of a target file; nothing to reach for the
 * embedded reference, which each worker starts in-process) and a teardown project.
 */
export function standaloneProjects(
  settings: Omit<RuleProjectsSettings, 'dependencies'> & { runEnvironment: Record<string, string> },
): Project<object, SuiteOptions>[] {
  const { directory: state, created } = runStateDirectory();
  const runEnvironment: Record<string, string> = {
    ...settings.runEnvironment,
    [ENV.projectState]: state,
    [ENV.answerWatchFile]: join(state, 'consecutive-no-answers'),
    [ENV.trafficFile]: join(state, 'traffic.json'),
    [ENV.protocols]: settings.protocols.join(','),
  };
  if (settings.declaredTarget.mode === 'embedded') runEnvironment[ENV.embeddedInWorker] = '1';
  if (created)
    writeFileSync(
      join(state, 'traffic.json'),
      JSON.stringify(initialTraffic(readRunSettings(runEnvironment).maxRps)),
    );
  const setupName = `${settings.prefix} set-up`;
  const teardownName = `${settings.prefix} teardown`;
  const shared = { declaredTarget: settings.declaredTarget, protocol: 'h1' as const, runEnvironment };
  return [
    {
      name: setupName,
      testDir: join(CODE_ROOT, 'conformance', 'run'),
      testMatch: /project-setup\.(ts|js)$/,
      teardown: teardownName,
      use: shared,
    },
    {
      name: teardownName,
      testDir: join(CODE_ROOT, 'conformance', 'run'),
      testMatch: /project-teardown\.(ts|js)$/,
      use: shared,
    },
    ...ruleProjects({ ...settings, runEnvironment, dependencies: [setupName] }),
  ];
}
