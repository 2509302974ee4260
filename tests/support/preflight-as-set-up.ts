// The preflight of a target file as a run's set-up project makes it (conformance/run/project-
// setup.ts): the target declared from the file, its keys bound from the variables given, under the
// run's settings — in the test's own process. For a test about what the preflight decides (the
// stage, the problem, the fix): a run of the `run` command costs a Playwright runner and a worker
// to say the same, and stays the proof of what the run does with the decision.
import { ENV, inputEnvironment } from '../../conformance/env.ts';
import { declareTarget } from '../../conformance/deployment/target.ts';
import { runPreflight, type PreflightResult } from '../../conformance/deployment/preflight.ts';
import { bindTarget } from '../../conformance/run/run-target.ts';
import {
  readRunSettings,
  runSettings,
  useRunSettings,
  type RunSettings,
} from '../../conformance/settings.ts';
import { userAgentsFor } from '../../conformance/requests/user-agents.ts';

/** A target file declared and its keys bound, under the run settings `env` gives, as the set-up project does. */
export function targetAsSetUp(file: string, env: NodeJS.ProcessEnv) {
  const settings = readRunSettings(env);
  const declared = declareTarget(file, env, 'file', settings.profile);
  return { settings, declared, bound: bindTarget(declared, env) };
}

/** `work` with `settings` this process's, as the set-up project runs the preflight; then as before. */
export async function underSettings<T>(settings: Readonly<RunSettings>, work: () => Promise<T>): Promise<T> {
  const previous = runSettings();
  useRunSettings(settings);
  userAgentsFor('preflight');
  try {
    return await work();
  } finally {
    useRunSettings(previous);
  }
}

export async function preflightOf(
  file: string,
  variables: Readonly<Record<string, string>>,
): Promise<PreflightResult> {
  const env = { ...inputEnvironment(), ...variables, [ENV.targetFile]: file };
  const { settings, bound } = targetAsSetUp(file, env);
  return underSettings(settings, () => runPreflight(bound, settings.requestTimeoutMs));
}
