// Several deployments of one test file checked by the suite in ONE Playwright run, the way the
// mutation campaign checks its variants (mutation/batch-run.ts): each target declared and
// preflighted here as the set-up project would, each with its own report directory, outcome file
// and printed summary, read back as a run of its own (ConformanceRun). A runner, a set-up project
// and their worker processes are what a run costs beyond its rules; a file of a dozen deployments
// pays them once. A run's settings, its `--grep` and its `--retries` are each deployment's own.
// What only the `run` command does (its options, its exit, its console while the rules run)
// stays proved by the tests that run it (runConformance).
import { after, before } from 'node:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV, inputEnvironment } from '../../conformance/env.ts';
import { runPreflight } from '../../conformance/deployment/preflight.ts';
import { targetAsSetUp, underSettings } from './preflight-as-set-up.ts';
import { runBatch, type BatchEntry } from '../../mutation/batch-run.ts';
import { protocolsOffered } from '../../conformance/run/run.ts';
import { PROTOCOLS, type Protocol } from '../../conformance/requests/protocols.ts';
import { OVER_OFFERED_PROTOCOLS, runConformance, type ConformanceRun } from './conformance-run.ts';
import { scratchDirectory } from './scratch.ts';

export interface BatchedTarget {
  /** Names the run in the batch: letters, digits and dashes. */
  name: string;
  /** The target file, as the test wrote it for `run --target`. */
  file: string;
  /** The variables the target file names, with the keys. */
  env: Readonly<Record<string, string>>;
  profile?: 'default' | 'strict';
  /**
   * The protocols its rules are checked over: HTTP/1.1 alone unless told, as runConformance's runs
   * are; a list, as `--protocols` gives it; or 'offered', what the target offers by ALPN, as a
   * user's run without `--protocols` (the `run` command's own finding, reports and all).
   */
  protocols?: readonly Protocol[] | 'offered';
  /** More settings of the run, as their CONFORMANCE_* variables (the options table's). */
  settings?: Readonly<Record<string, string>>;
  /** Its run's `--grep`: the rules it selects alone are checked, and its report says so. */
  grep?: string;
  /** Its run's `--retries`. */
  retries?: number;
}

/** Each target's run, over HTTP/1.1 as runConformance's are unless told; by name. */
export async function runTargetsTogether(
  targets: readonly BatchedTarget[],
  { workers = 2, timeoutMs = 600_000 } = {},
): Promise<Map<string, ConformanceRun>> {
  const work = scratchDirectory('batched-runs-');
  // One after another: each preflight runs under its own run's settings (its User-Agent, its
  // time limits), which the request layer reads from this process's (useRunSettings).
  const prepared = [];
  for (const [index, target] of targets.entries()) prepared.push(await prepare(target, index));
  const batched = prepared.filter((entry) => entry.entry.preflight.ok);
  const caBundle = join(work, 'ca-bundle.pem');
  writeFileSync(
    caBundle,
    batched
      .flatMap(({ entry }) => (entry.declared.caFile ? [readFileSync(entry.declared.caFile, 'utf8')] : []))
      .join('\n'),
  );
  const runs = await runBatch(
    work,
    batched.map(({ entry }) => entry),
    Object.assign({}, ...batched.map(({ keys }) => keys)) as Record<string, string>,
    // A failure is not known ahead, as in a user's run: a failed rule keeps its worker.
    { workers, caFile: caBundle, failedRulesKeepWorker: true, timeoutMs },
  );
  const results = new Map<string, ConformanceRun>();
  for (const { target, entry } of prepared) {
    const run = runs.get(entry.name);
    // A preflight that fails stops the run with SETUP ERROR: that is the runner's to say.
    results.set(
      target.name,
      run
        ? { ...run, stdout: run.console, outcomes: [] }
        : await runConformance(
            [
              '--target',
              target.file,
              ...(target.profile ? ['--profile', target.profile] : []),
              ...(Array.isArray(target.protocols) ? ['--protocols', target.protocols.join(',')] : []),
              ...(target.grep !== undefined ? ['--grep', target.grep] : []),
              ...(target.retries !== undefined ? ['--retries', String(target.retries)] : []),
            ],
            {
              ...target.env,
              ...target.settings,
              ...(target.protocols === 'offered' ? OVER_OFFERED_PROTOCOLS : {}),
            },
          ),
    );
  }
  return results;
}

/**
 * The target as a run of the batch reads it: its key variables renamed apart from the other
 * targets' (each deployment has keys of its own under the same names), written beside the
 * original so that its relative paths (caFile) still resolve; declared and preflighted.
 */
async function prepare(
  target: BatchedTarget,
  index: number,
): Promise<{ target: BatchedTarget; entry: BatchEntry; keys: Record<string, string> }> {
  const suffix = `__BATCHED_${index}`;
  const declaration = JSON.parse(readFileSync(target.file, 'utf8')) as {
    credentials?: Record<string, string>;
  };
  const credentials = Object.fromEntries(
    Object.entries(declaration.credentials ?? {}).map(([role, variable]) => [role, `${variable}${suffix}`]),
  );
  const file = target.file.replace(/\.json$/, `.batched-${index}.json`);
  writeFileSync(file, JSON.stringify({ ...declaration, credentials }, null, 2));
  const keys = Object.fromEntries(
    Object.entries(target.env).map(([name, value]) => [`${name}${suffix}`, value]),
  );
  const environment: Record<string, string> = {
    ...target.settings,
    [ENV.targetFile]: file,
    ...(target.profile ? { [ENV.profile]: target.profile } : {}),
  };
  const env = { ...inputEnvironment(), ...keys, ...environment };
  const { settings, declared, bound } = targetAsSetUp(file, env);
  const { requestTimeoutMs } = settings;
  // As the `run` command decides them (conformance/run/run.ts), for the reports to say the same.
  const chosen = target.protocols;
  const offered = chosen === 'offered';
  const protocols: Protocol[] =
    chosen === 'offered' ? await protocolsOffered(bound, requestTimeoutMs) : [...(chosen ?? ['h1'])];
  if (chosen !== undefined) {
    environment[ENV.protocols] = protocols.join(',');
    environment[ENV.protocolsNotOffered] = offered
      ? PROTOCOLS.filter((protocol) => !protocols.includes(protocol)).join(',')
      : '';
  }
  const preflight = await underSettings(settings, () => runPreflight(bound, requestTimeoutMs, protocols));
  return {
    target,
    entry: {
      name: target.name,
      environment,
      declared,
      preflight,
      protocols,
      ...(target.grep !== undefined ? { grep: target.grep } : {}),
      ...(target.retries !== undefined ? { retries: target.retries } : {}),
    },
    keys,
  };
}

/** A deployment a test file starts: the target file naming it, and how to stop it. */
export interface StartedDeployment {
  target: { file: string; env: Readonly<Record<string, string>> };
  close(): Promise<void>;
}

/** How a deployment of the batch is checked: what `run`'s options would say for a run of its own. */
export type DeploymentOptions = Pick<
  BatchedTarget,
  'profile' | 'protocols' | 'settings' | 'grep' | 'retries'
>;

export interface BatchOfDeployments {
  /**
   * Plans deployment `name` (letters, digits, dashes), started by `start` before the file's tests
   * and checked with the others in one batch; the function returned gives it with its run.
   */
  add<T extends StartedDeployment>(
    name: string,
    start: () => Promise<T>,
    options?: DeploymentOptions,
  ): () => T & { run: ConformanceRun };
}

/**
 * The deployments of a test file, checked together: call at the file's top level, `add` each
 * deployment while the file loads; before its first test every one is started and the batch run,
 * after its last every one is stopped.
 */
export function batchOfDeployments(): BatchOfDeployments {
  const planned = new Map<string, { start: () => Promise<StartedDeployment>; options: DeploymentOptions }>();
  const started = new Map<string, StartedDeployment & { run?: ConformanceRun }>();
  before(
    async () => {
      // node:test starts a hook of the file's top level as it is registered, while the file is
      // still loading: the deployments are added after this call, so their plan is read a turn later.
      await new Promise((loaded) => setImmediate(loaded));
      for (const [name, { start }] of planned) started.set(name, await start());
      const runs = await runTargetsTogether(
        [...started].map(([name, { target }]) => ({
          name,
          file: target.file,
          env: target.env,
          ...planned.get(name)?.options,
        })),
      );
      for (const [name, run] of runs) {
        const deployment = started.get(name);
        if (deployment) deployment.run = run;
      }
    },
    { timeout: 600_000 },
  );
  after(async () => {
    for (const deployment of started.values()) await deployment.close();
  });
  return {
    add<T extends StartedDeployment>(name: string, start: () => Promise<T>, options: DeploymentOptions = {}) {
      if (planned.has(name)) throw new Error(`Two deployments named ${name} in one batch.`);
      planned.set(name, { start, options });
      return () => {
        const deployment = started.get(name) as (T & { run?: ConformanceRun }) | undefined;
        if (!deployment?.run) throw new Error(`No run of ${name}: its deployment did not start.`);
        return deployment as T & { run: ConformanceRun };
      };
    },
  };
}

/** The run named `name` of a batch's runs (runTargetsTogether); a test fails if there is none. */
export function runNamed(runs: ReadonlyMap<string, ConformanceRun>, name: string): ConformanceRun {
  const run = runs.get(name);
  if (!run) throw new Error(`No run of ${name} in the batch.`);
  return run;
}
