// The keys a run's results may hold, shown as their variables' names before any reporter writes
// them (conformance/redaction/shown-keys.ts): the target's keys, from the environment, and the
// keys the set-up project minted, from the run's state file — a hand-over of the run's processes.
// It knows the rule projects' hand-overs (their `runEnvironment` option), and so does the
// reporter through it: the preflight's result, the outcome and traffic files are read there.
import type { TestError } from '@playwright/test/reporter';
import { KeyNamer, keyNamerFor } from '../redaction/shown-keys.ts';
import type { TargetDeclaration } from '../deployment/target.ts';
import { bindTarget } from './run-target.ts';
import { readProjectState } from './project-state.ts';
import type { DeclaredHostsAndKeys } from '../judging/run-facts.ts';
import { inputEnvironment } from '../env.ts';

export class RunRedaction {
  #namerOfRun: KeyNamer | undefined;
  #declaredTarget: TargetDeclaration | undefined;
  /** What the rule projects' processes hand each other (the state directory); never a setting. */
  #runEnvironment: Readonly<Record<string, string>> = {};

  /** The run's target and hand-overs, once the config is known; the namer is made again. */
  forRun(
    declaredTarget: TargetDeclaration | undefined,
    runEnvironment: Readonly<Record<string, string>>,
  ): void {
    this.#declaredTarget = declaredTarget;
    this.#runEnvironment = runEnvironment;
    this.#namerOfRun = undefined;
  }

  /** The set-up project has left its state, minted keys and all: the namer is made again with them. */
  forget(): void {
    this.#namerOfRun = undefined;
  }

  /**
   * Made on first use, and again when the set-up project's test has ended: the keys it minted are
   * in the run's state file (project-state.ts), beside the configured ones in the environment.
   */
  namer(): KeyNamer {
    if (!this.#namerOfRun) {
      const env = this.environment();
      // merge-reports declares no target (the machine merging may not have its variables): the
      // evidence was redacted when it was recorded, and nothing new is sent.
      this.#namerOfRun = this.#declaredTarget
        ? keyNamerFor(bindTarget(this.#declaredTarget, { ...env, ...readProjectState(env)?.env }))
        : new KeyNamer([]);
    }
    return this.#namerOfRun;
  }

  /** The run's declared hosts and key variables (minted keys' included), without any key value. */
  boundTarget(): DeclaredHostsAndKeys | undefined {
    if (!this.#declaredTarget) return undefined;
    const env = this.environment();
    const { baseUrl, otherTenantBaseUrl, sandboxBaseUrl, credentialVariables } = bindTarget(
      this.#declaredTarget,
      { ...env, ...readProjectState(env)?.env },
    );
    return {
      baseUrl,
      ...(otherTenantBaseUrl !== undefined ? { otherTenantBaseUrl } : {}),
      ...(sandboxBaseUrl !== undefined ? { sandboxBaseUrl } : {}),
      credentialVariables,
    };
  }

  /**
   * The environment of the run's processes: this one's, with the rule projects' hand-overs over
   * it (a batch's variant names its own outcome file). Keys and hand-overs, never a setting.
   */
  environment(): NodeJS.ProcessEnv {
    return { ...inputEnvironment(), ...this.#runEnvironment };
  }

  /** `text` with every key shown as its variable's name. */
  show(text: string): string {
    return this.namer().show(text);
  }

  /** Masks the keys in an error, in place, its cause included. */
  redactError(error: TestError): void {
    for (const field of ['message', 'stack', 'value', 'snippet'] as const) {
      const text = error[field];
      if (typeof text === 'string') error[field] = this.show(text);
    }
    if (error.cause) this.redactError(error.cause);
  }
}
